/* eslint-disable */
// @ts-nocheck
// Written by `npm run config:validator` (scripts/write-config-validator.ts) from EnvSchema of
// src/config.ts: Ajv's standalone code, compiled ahead of time. Do not edit.
import helper0 from 'ajv/dist/runtime/ucs2length.js'
export const validate = validate0;
export default validate0;
const schema0 = {"type":"object","required":["PORT","HOST","DATA_DIR","DATABASE_POOL_SIZE","DATABASE_TIMEOUT_MS","ENVIRONMENT","LOG_LEVEL","BODY_LIMIT","MAX_CONNECTIONS","REDIS_KEY_PREFIX","REDIS_TIMEOUT_MS","TRUST_PROXY","ACME_DIRECTORY_URL","ACME_CAA_DOMAINS","DOMAIN_WORKER_INTERVAL_MS","RESPONSE_CACHE","RESPONSE_CACHE_MAX_BYTES","WEBHOOK_TIMEOUT_MS","WEBHOOK_WORKER_INTERVAL_MS","WEBHOOK_RETENTION_DAYS","S3_REGION","S3_PREFIX","PHOTO_MAX_BYTES","MEDIA_CACHE_MAX_BYTES","PHOTO_MAX_PIXELS","PHOTO_PROCESSING_CONCURRENCY","PHOTO_SWEEP_INTERVAL_MS"],"properties":{"PORT":{"type":"integer","minimum":0,"maximum":65535,"default":8080},"HOST":{"type":"string","minLength":1,"default":"127.0.0.1"},"DATA_DIR":{"type":"string","minLength":1,"default":"./data"},"DATABASE_URL":{"type":"string","pattern":"^postgres(ql)?://","description":"a postgres:// or postgresql:// URL"},"DATABASE_POOL_SIZE":{"type":"integer","minimum":1,"maximum":1000,"default":10},"DATABASE_TIMEOUT_MS":{"type":"integer","minimum":100,"maximum":600000,"default":5000},"ENVIRONMENT":{"enum":["production","staging"],"default":"production"},"PUBLIC_BASE_URL":{"type":"string","pattern":"^https?://[^\\s]+/v1$","description":"an http:// or https:// URL ending in /v1"},"STAGING_BASE_URL":{"type":"string","pattern":"^https?://[^\\s]+/v1$","description":"an http:// or https:// URL ending in /v1"},"LOG_LEVEL":{"enum":["fatal","error","warn","info","debug","trace","silent"],"default":"info"},"BODY_LIMIT":{"type":"integer","minimum":1024,"maximum":104857600,"default":1048576},"MAX_CONNECTIONS":{"type":"integer","minimum":16,"maximum":1000000,"default":10000},"REDIS_URL":{"type":"string","pattern":"^rediss?://","description":"a redis:// or rediss:// URL"},"REDIS_KEY_PREFIX":{"type":"string","pattern":"^[A-Za-z0-9:_.-]{0,64}$","default":"adoption-store:","description":"up to 64 letters, digits and : _ . -"},"REDIS_TIMEOUT_MS":{"type":"integer","minimum":10,"maximum":10000,"default":250},"TRUST_PROXY":{"type":"string","pattern":"^(true|false|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+)$","default":"false","description":"true, false, a hop count (0-99), or comma-separated proxy addresses and CIDR ranges"},"PLATFORM_DOMAIN":{"type":"string","pattern":"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$","description":"a lowercase DNS name of two or more labels, without a trailing dot (e.g. stores.example.com)"},"PLATFORM_DNS_TARGET":{"type":"string","pattern":"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$","description":"a lowercase DNS name of two or more labels, without a trailing dot (e.g. stores.example.com)"},"DNS_RESOLVERS":{"type":"string","pattern":"^[0-9A-Fa-f.:\\[\\], ]+$","description":"comma-separated IP addresses, each with an optional :port"},"ADMIN_TOKEN":{"type":"string","pattern":"^[\\x21-\\x7e]{32,512}$","description":"32 to 512 printable ASCII characters, without spaces (e.g. openssl rand -hex 32)"},"HTTPS_PORT":{"type":"integer","minimum":0,"maximum":65535},"ACME_DIRECTORY_URL":{"type":"string","pattern":"^https?://[^\\s]+$","default":"https://acme-v02.api.letsencrypt.org/directory","description":"an http:// or https:// URL"},"ACME_EMAIL":{"type":"string","pattern":"^[^\\s@]+@[^\\s@]+$","description":"an email address"},"ACME_CA_FILE":{"type":"string","minLength":1},"ACME_CAA_DOMAINS":{"type":"string","pattern":"^[a-z0-9.-]+(,[a-z0-9.-]+)*$","default":"letsencrypt.org","description":"comma-separated lowercase domain names, without spaces"},"CERTIFICATE_ENCRYPTION_KEY":{"type":"string","pattern":"^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$","description":"32 bytes as 64 hex or 44 base64 characters (e.g. openssl rand -hex 32)"},"DOMAIN_WORKER_INTERVAL_MS":{"type":"integer","minimum":100,"maximum":3600000,"default":15000},"RESPONSE_CACHE":{"enum":["on","off"],"default":"on"},"RESPONSE_CACHE_MAX_BYTES":{"type":"integer","minimum":0,"maximum":17179869184,"default":33554432},"WEBHOOK_ENCRYPTION_KEY":{"type":"string","pattern":"^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$","description":"32 bytes as 64 hex or 44 base64 characters (e.g. openssl rand -hex 32)"},"WEBHOOK_PREVIOUS_ENCRYPTION_KEYS":{"type":"string","pattern":"^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)(,([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=))*$","description":"comma-separated keys of 32 bytes, each as 64 hex or 44 base64 characters"},"WEBHOOK_ALLOWED_NETWORKS":{"type":"string","pattern":"^[0-9A-Fa-f.:/, ]+$","description":"comma-separated CIDR ranges, e.g. 10.0.0.0/8,127.0.0.1/32"},"WEBHOOK_TIMEOUT_MS":{"type":"integer","minimum":100,"maximum":60000,"default":10000},"WEBHOOK_WORKER_INTERVAL_MS":{"type":"integer","minimum":50,"maximum":3600000,"default":1000},"WEBHOOK_RETENTION_DAYS":{"type":"integer","minimum":1,"maximum":365,"default":30},"S3_BUCKET":{"type":"string","pattern":"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$","description":"an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens"},"S3_ENDPOINT":{"type":"string","pattern":"^https?://[^\\s/]+/?$","description":"an http:// or https:// URL of the S3-compatible server, without a path (e.g. http://127.0.0.1:9000)"},"S3_REGION":{"type":"string","minLength":1,"maxLength":64,"default":"us-east-1"},"S3_FORCE_PATH_STYLE":{"enum":["true","false"]},"S3_PREFIX":{"type":"string","pattern":"^([A-Za-z0-9._-]+/)*$","default":"","description":"empty, or folder names each ending in / (e.g. adoption-store/)"},"MEDIA_BASE_URL":{"type":"string","pattern":"^https?://[^\\s]+[^/]$","description":"an http:// or https:// URL without a trailing slash"},"PHOTO_MAX_BYTES":{"type":"integer","minimum":1024,"maximum":104857600,"default":20971520},"MEDIA_CACHE_MAX_BYTES":{"type":"integer","minimum":0,"maximum":17179869184,"default":33554432},"PHOTO_MAX_PIXELS":{"type":"integer","minimum":10000,"maximum":268402689,"default":50000000},"PHOTO_PROCESSING_CONCURRENCY":{"type":"integer","minimum":1,"maximum":64,"default":1},"PHOTO_SWEEP_INTERVAL_MS":{"type":"integer","minimum":1000,"maximum":86400000,"default":3600000}},"additionalProperties":false};
const func0 = Object.prototype.hasOwnProperty;
const func1 = helper0.default;
const pattern0 = new RegExp("^postgres(ql)?://", "u");
const pattern1 = new RegExp("^https?://[^\\s]+/v1$", "u");
const pattern3 = new RegExp("^rediss?://", "u");
const pattern4 = new RegExp("^[A-Za-z0-9:_.-]{0,64}$", "u");
const pattern5 = new RegExp("^(true|false|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+)$", "u");
const pattern6 = new RegExp("^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", "u");
const pattern8 = new RegExp("^[0-9A-Fa-f.:\\[\\], ]+$", "u");
const pattern9 = new RegExp("^[\\x21-\\x7e]{32,512}$", "u");
const pattern10 = new RegExp("^https?://[^\\s]+$", "u");
const pattern11 = new RegExp("^[^\\s@]+@[^\\s@]+$", "u");
const pattern12 = new RegExp("^[a-z0-9.-]+(,[a-z0-9.-]+)*$", "u");
const pattern13 = new RegExp("^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$", "u");
const pattern15 = new RegExp("^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)(,([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=))*$", "u");
const pattern16 = new RegExp("^[0-9A-Fa-f.:/, ]+$", "u");
const pattern17 = new RegExp("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", "u");
const pattern18 = new RegExp("^https?://[^\\s/]+/?$", "u");
const pattern19 = new RegExp("^([A-Za-z0-9._-]+/)*$", "u");
const pattern20 = new RegExp("^https?://[^\\s]+[^/]$", "u");

function validate0(data, {instancePath="", parentData, parentDataProperty, rootData=data}={}){
let vErrors = null;
let errors = 0;
if(data && typeof data == "object" && !Array.isArray(data)){
if(data.PORT === undefined){
data.PORT = 8080;
}
if(data.HOST === undefined){
data.HOST = "127.0.0.1";
}
if(data.DATA_DIR === undefined){
data.DATA_DIR = "./data";
}
if(data.DATABASE_POOL_SIZE === undefined){
data.DATABASE_POOL_SIZE = 10;
}
if(data.DATABASE_TIMEOUT_MS === undefined){
data.DATABASE_TIMEOUT_MS = 5000;
}
if(data.ENVIRONMENT === undefined){
data.ENVIRONMENT = "production";
}
if(data.LOG_LEVEL === undefined){
data.LOG_LEVEL = "info";
}
if(data.BODY_LIMIT === undefined){
data.BODY_LIMIT = 1048576;
}
if(data.MAX_CONNECTIONS === undefined){
data.MAX_CONNECTIONS = 10000;
}
if(data.REDIS_KEY_PREFIX === undefined){
data.REDIS_KEY_PREFIX = "adoption-store:";
}
if(data.REDIS_TIMEOUT_MS === undefined){
data.REDIS_TIMEOUT_MS = 250;
}
if(data.TRUST_PROXY === undefined){
data.TRUST_PROXY = "false";
}
if(data.ACME_DIRECTORY_URL === undefined){
data.ACME_DIRECTORY_URL = "https://acme-v02.api.letsencrypt.org/directory";
}
if(data.ACME_CAA_DOMAINS === undefined){
data.ACME_CAA_DOMAINS = "letsencrypt.org";
}
if(data.DOMAIN_WORKER_INTERVAL_MS === undefined){
data.DOMAIN_WORKER_INTERVAL_MS = 15000;
}
if(data.RESPONSE_CACHE === undefined){
data.RESPONSE_CACHE = "on";
}
if(data.RESPONSE_CACHE_MAX_BYTES === undefined){
data.RESPONSE_CACHE_MAX_BYTES = 33554432;
}
if(data.WEBHOOK_TIMEOUT_MS === undefined){
data.WEBHOOK_TIMEOUT_MS = 10000;
}
if(data.WEBHOOK_WORKER_INTERVAL_MS === undefined){
data.WEBHOOK_WORKER_INTERVAL_MS = 1000;
}
if(data.WEBHOOK_RETENTION_DAYS === undefined){
data.WEBHOOK_RETENTION_DAYS = 30;
}
if(data.S3_REGION === undefined){
data.S3_REGION = "us-east-1";
}
if(data.S3_PREFIX === undefined){
data.S3_PREFIX = "";
}
if(data.PHOTO_MAX_BYTES === undefined){
data.PHOTO_MAX_BYTES = 20971520;
}
if(data.MEDIA_CACHE_MAX_BYTES === undefined){
data.MEDIA_CACHE_MAX_BYTES = 33554432;
}
if(data.PHOTO_MAX_PIXELS === undefined){
data.PHOTO_MAX_PIXELS = 50000000;
}
if(data.PHOTO_PROCESSING_CONCURRENCY === undefined){
data.PHOTO_PROCESSING_CONCURRENCY = 1;
}
if(data.PHOTO_SWEEP_INTERVAL_MS === undefined){
data.PHOTO_SWEEP_INTERVAL_MS = 3600000;
}
if(data.PORT === undefined){
const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "PORT"},message:"must have required property '"+"PORT"+"'"};
if(vErrors === null){
vErrors = [err0];
}
else {
vErrors.push(err0);
}
errors++;
}
if(data.HOST === undefined){
const err1 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "HOST"},message:"must have required property '"+"HOST"+"'"};
if(vErrors === null){
vErrors = [err1];
}
else {
vErrors.push(err1);
}
errors++;
}
if(data.DATA_DIR === undefined){
const err2 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "DATA_DIR"},message:"must have required property '"+"DATA_DIR"+"'"};
if(vErrors === null){
vErrors = [err2];
}
else {
vErrors.push(err2);
}
errors++;
}
if(data.DATABASE_POOL_SIZE === undefined){
const err3 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "DATABASE_POOL_SIZE"},message:"must have required property '"+"DATABASE_POOL_SIZE"+"'"};
if(vErrors === null){
vErrors = [err3];
}
else {
vErrors.push(err3);
}
errors++;
}
if(data.DATABASE_TIMEOUT_MS === undefined){
const err4 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "DATABASE_TIMEOUT_MS"},message:"must have required property '"+"DATABASE_TIMEOUT_MS"+"'"};
if(vErrors === null){
vErrors = [err4];
}
else {
vErrors.push(err4);
}
errors++;
}
if(data.ENVIRONMENT === undefined){
const err5 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "ENVIRONMENT"},message:"must have required property '"+"ENVIRONMENT"+"'"};
if(vErrors === null){
vErrors = [err5];
}
else {
vErrors.push(err5);
}
errors++;
}
if(data.LOG_LEVEL === undefined){
const err6 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "LOG_LEVEL"},message:"must have required property '"+"LOG_LEVEL"+"'"};
if(vErrors === null){
vErrors = [err6];
}
else {
vErrors.push(err6);
}
errors++;
}
if(data.BODY_LIMIT === undefined){
const err7 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "BODY_LIMIT"},message:"must have required property '"+"BODY_LIMIT"+"'"};
if(vErrors === null){
vErrors = [err7];
}
else {
vErrors.push(err7);
}
errors++;
}
if(data.MAX_CONNECTIONS === undefined){
const err8 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "MAX_CONNECTIONS"},message:"must have required property '"+"MAX_CONNECTIONS"+"'"};
if(vErrors === null){
vErrors = [err8];
}
else {
vErrors.push(err8);
}
errors++;
}
if(data.REDIS_KEY_PREFIX === undefined){
const err9 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "REDIS_KEY_PREFIX"},message:"must have required property '"+"REDIS_KEY_PREFIX"+"'"};
if(vErrors === null){
vErrors = [err9];
}
else {
vErrors.push(err9);
}
errors++;
}
if(data.REDIS_TIMEOUT_MS === undefined){
const err10 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "REDIS_TIMEOUT_MS"},message:"must have required property '"+"REDIS_TIMEOUT_MS"+"'"};
if(vErrors === null){
vErrors = [err10];
}
else {
vErrors.push(err10);
}
errors++;
}
if(data.TRUST_PROXY === undefined){
const err11 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "TRUST_PROXY"},message:"must have required property '"+"TRUST_PROXY"+"'"};
if(vErrors === null){
vErrors = [err11];
}
else {
vErrors.push(err11);
}
errors++;
}
if(data.ACME_DIRECTORY_URL === undefined){
const err12 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "ACME_DIRECTORY_URL"},message:"must have required property '"+"ACME_DIRECTORY_URL"+"'"};
if(vErrors === null){
vErrors = [err12];
}
else {
vErrors.push(err12);
}
errors++;
}
if(data.ACME_CAA_DOMAINS === undefined){
const err13 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "ACME_CAA_DOMAINS"},message:"must have required property '"+"ACME_CAA_DOMAINS"+"'"};
if(vErrors === null){
vErrors = [err13];
}
else {
vErrors.push(err13);
}
errors++;
}
if(data.DOMAIN_WORKER_INTERVAL_MS === undefined){
const err14 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "DOMAIN_WORKER_INTERVAL_MS"},message:"must have required property '"+"DOMAIN_WORKER_INTERVAL_MS"+"'"};
if(vErrors === null){
vErrors = [err14];
}
else {
vErrors.push(err14);
}
errors++;
}
if(data.RESPONSE_CACHE === undefined){
const err15 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "RESPONSE_CACHE"},message:"must have required property '"+"RESPONSE_CACHE"+"'"};
if(vErrors === null){
vErrors = [err15];
}
else {
vErrors.push(err15);
}
errors++;
}
if(data.RESPONSE_CACHE_MAX_BYTES === undefined){
const err16 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "RESPONSE_CACHE_MAX_BYTES"},message:"must have required property '"+"RESPONSE_CACHE_MAX_BYTES"+"'"};
if(vErrors === null){
vErrors = [err16];
}
else {
vErrors.push(err16);
}
errors++;
}
if(data.WEBHOOK_TIMEOUT_MS === undefined){
const err17 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "WEBHOOK_TIMEOUT_MS"},message:"must have required property '"+"WEBHOOK_TIMEOUT_MS"+"'"};
if(vErrors === null){
vErrors = [err17];
}
else {
vErrors.push(err17);
}
errors++;
}
if(data.WEBHOOK_WORKER_INTERVAL_MS === undefined){
const err18 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "WEBHOOK_WORKER_INTERVAL_MS"},message:"must have required property '"+"WEBHOOK_WORKER_INTERVAL_MS"+"'"};
if(vErrors === null){
vErrors = [err18];
}
else {
vErrors.push(err18);
}
errors++;
}
if(data.WEBHOOK_RETENTION_DAYS === undefined){
const err19 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "WEBHOOK_RETENTION_DAYS"},message:"must have required property '"+"WEBHOOK_RETENTION_DAYS"+"'"};
if(vErrors === null){
vErrors = [err19];
}
else {
vErrors.push(err19);
}
errors++;
}
if(data.S3_REGION === undefined){
const err20 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "S3_REGION"},message:"must have required property '"+"S3_REGION"+"'"};
if(vErrors === null){
vErrors = [err20];
}
else {
vErrors.push(err20);
}
errors++;
}
if(data.S3_PREFIX === undefined){
const err21 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "S3_PREFIX"},message:"must have required property '"+"S3_PREFIX"+"'"};
if(vErrors === null){
vErrors = [err21];
}
else {
vErrors.push(err21);
}
errors++;
}
if(data.PHOTO_MAX_BYTES === undefined){
const err22 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "PHOTO_MAX_BYTES"},message:"must have required property '"+"PHOTO_MAX_BYTES"+"'"};
if(vErrors === null){
vErrors = [err22];
}
else {
vErrors.push(err22);
}
errors++;
}
if(data.MEDIA_CACHE_MAX_BYTES === undefined){
const err23 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "MEDIA_CACHE_MAX_BYTES"},message:"must have required property '"+"MEDIA_CACHE_MAX_BYTES"+"'"};
if(vErrors === null){
vErrors = [err23];
}
else {
vErrors.push(err23);
}
errors++;
}
if(data.PHOTO_MAX_PIXELS === undefined){
const err24 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "PHOTO_MAX_PIXELS"},message:"must have required property '"+"PHOTO_MAX_PIXELS"+"'"};
if(vErrors === null){
vErrors = [err24];
}
else {
vErrors.push(err24);
}
errors++;
}
if(data.PHOTO_PROCESSING_CONCURRENCY === undefined){
const err25 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "PHOTO_PROCESSING_CONCURRENCY"},message:"must have required property '"+"PHOTO_PROCESSING_CONCURRENCY"+"'"};
if(vErrors === null){
vErrors = [err25];
}
else {
vErrors.push(err25);
}
errors++;
}
if(data.PHOTO_SWEEP_INTERVAL_MS === undefined){
const err26 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "PHOTO_SWEEP_INTERVAL_MS"},message:"must have required property '"+"PHOTO_SWEEP_INTERVAL_MS"+"'"};
if(vErrors === null){
vErrors = [err26];
}
else {
vErrors.push(err26);
}
errors++;
}
for(const key0 in data){
if(!(func0.call(schema0.properties, key0))){
delete data[key0];
}
}
let data0 = data.PORT;
if(!(((typeof data0 == "number") && (!(data0 % 1) && !isNaN(data0))) && (isFinite(data0)))){
let dataType0 = typeof data0;
let coerced0 = undefined;
if(!(coerced0 !== undefined)){
if(dataType0 === "boolean" || data0 === null
              || (dataType0 === "string" && data0 && data0 == +data0 && !(data0 % 1))){
coerced0 = +data0;
}
else {
const err27 = {instancePath:instancePath+"/PORT",schemaPath:"#/properties/PORT/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err27];
}
else {
vErrors.push(err27);
}
errors++;
}
}
if(coerced0 !== undefined){
data0 = coerced0;
if(data !== undefined){
data["PORT"] = coerced0;
}
}
}
if((typeof data0 == "number") && (isFinite(data0))){
if(data0 > 65535 || isNaN(data0)){
const err28 = {instancePath:instancePath+"/PORT",schemaPath:"#/properties/PORT/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535"};
if(vErrors === null){
vErrors = [err28];
}
else {
vErrors.push(err28);
}
errors++;
}
if(data0 < 0 || isNaN(data0)){
const err29 = {instancePath:instancePath+"/PORT",schemaPath:"#/properties/PORT/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0"};
if(vErrors === null){
vErrors = [err29];
}
else {
vErrors.push(err29);
}
errors++;
}
}
let data1 = data.HOST;
if(typeof data1 !== "string"){
let dataType1 = typeof data1;
let coerced1 = undefined;
if(!(coerced1 !== undefined)){
if(dataType1 == "number" || dataType1 == "boolean"){
coerced1 = "" + data1;
}
else if(data1 === null){
coerced1 = "";
}
else {
const err30 = {instancePath:instancePath+"/HOST",schemaPath:"#/properties/HOST/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err30];
}
else {
vErrors.push(err30);
}
errors++;
}
}
if(coerced1 !== undefined){
data1 = coerced1;
if(data !== undefined){
data["HOST"] = coerced1;
}
}
}
if(typeof data1 === "string"){
if(func1(data1) < 1){
const err31 = {instancePath:instancePath+"/HOST",schemaPath:"#/properties/HOST/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters"};
if(vErrors === null){
vErrors = [err31];
}
else {
vErrors.push(err31);
}
errors++;
}
}
let data2 = data.DATA_DIR;
if(typeof data2 !== "string"){
let dataType2 = typeof data2;
let coerced2 = undefined;
if(!(coerced2 !== undefined)){
if(dataType2 == "number" || dataType2 == "boolean"){
coerced2 = "" + data2;
}
else if(data2 === null){
coerced2 = "";
}
else {
const err32 = {instancePath:instancePath+"/DATA_DIR",schemaPath:"#/properties/DATA_DIR/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err32];
}
else {
vErrors.push(err32);
}
errors++;
}
}
if(coerced2 !== undefined){
data2 = coerced2;
if(data !== undefined){
data["DATA_DIR"] = coerced2;
}
}
}
if(typeof data2 === "string"){
if(func1(data2) < 1){
const err33 = {instancePath:instancePath+"/DATA_DIR",schemaPath:"#/properties/DATA_DIR/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters"};
if(vErrors === null){
vErrors = [err33];
}
else {
vErrors.push(err33);
}
errors++;
}
}
if(data.DATABASE_URL !== undefined){
let data3 = data.DATABASE_URL;
if(typeof data3 !== "string"){
let dataType3 = typeof data3;
let coerced3 = undefined;
if(!(coerced3 !== undefined)){
if(dataType3 == "number" || dataType3 == "boolean"){
coerced3 = "" + data3;
}
else if(data3 === null){
coerced3 = "";
}
else {
const err34 = {instancePath:instancePath+"/DATABASE_URL",schemaPath:"#/properties/DATABASE_URL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err34];
}
else {
vErrors.push(err34);
}
errors++;
}
}
if(coerced3 !== undefined){
data3 = coerced3;
if(data !== undefined){
data["DATABASE_URL"] = coerced3;
}
}
}
if(typeof data3 === "string"){
if(!pattern0.test(data3)){
const err35 = {instancePath:instancePath+"/DATABASE_URL",schemaPath:"#/properties/DATABASE_URL/pattern",keyword:"pattern",params:{pattern: "^postgres(ql)?://"},message:"must match pattern \""+"^postgres(ql)?://"+"\""};
if(vErrors === null){
vErrors = [err35];
}
else {
vErrors.push(err35);
}
errors++;
}
}
}
let data4 = data.DATABASE_POOL_SIZE;
if(!(((typeof data4 == "number") && (!(data4 % 1) && !isNaN(data4))) && (isFinite(data4)))){
let dataType4 = typeof data4;
let coerced4 = undefined;
if(!(coerced4 !== undefined)){
if(dataType4 === "boolean" || data4 === null
              || (dataType4 === "string" && data4 && data4 == +data4 && !(data4 % 1))){
coerced4 = +data4;
}
else {
const err36 = {instancePath:instancePath+"/DATABASE_POOL_SIZE",schemaPath:"#/properties/DATABASE_POOL_SIZE/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err36];
}
else {
vErrors.push(err36);
}
errors++;
}
}
if(coerced4 !== undefined){
data4 = coerced4;
if(data !== undefined){
data["DATABASE_POOL_SIZE"] = coerced4;
}
}
}
if((typeof data4 == "number") && (isFinite(data4))){
if(data4 > 1000 || isNaN(data4)){
const err37 = {instancePath:instancePath+"/DATABASE_POOL_SIZE",schemaPath:"#/properties/DATABASE_POOL_SIZE/maximum",keyword:"maximum",params:{comparison: "<=", limit: 1000},message:"must be <= 1000"};
if(vErrors === null){
vErrors = [err37];
}
else {
vErrors.push(err37);
}
errors++;
}
if(data4 < 1 || isNaN(data4)){
const err38 = {instancePath:instancePath+"/DATABASE_POOL_SIZE",schemaPath:"#/properties/DATABASE_POOL_SIZE/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err38];
}
else {
vErrors.push(err38);
}
errors++;
}
}
let data5 = data.DATABASE_TIMEOUT_MS;
if(!(((typeof data5 == "number") && (!(data5 % 1) && !isNaN(data5))) && (isFinite(data5)))){
let dataType5 = typeof data5;
let coerced5 = undefined;
if(!(coerced5 !== undefined)){
if(dataType5 === "boolean" || data5 === null
              || (dataType5 === "string" && data5 && data5 == +data5 && !(data5 % 1))){
coerced5 = +data5;
}
else {
const err39 = {instancePath:instancePath+"/DATABASE_TIMEOUT_MS",schemaPath:"#/properties/DATABASE_TIMEOUT_MS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err39];
}
else {
vErrors.push(err39);
}
errors++;
}
}
if(coerced5 !== undefined){
data5 = coerced5;
if(data !== undefined){
data["DATABASE_TIMEOUT_MS"] = coerced5;
}
}
}
if((typeof data5 == "number") && (isFinite(data5))){
if(data5 > 600000 || isNaN(data5)){
const err40 = {instancePath:instancePath+"/DATABASE_TIMEOUT_MS",schemaPath:"#/properties/DATABASE_TIMEOUT_MS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 600000},message:"must be <= 600000"};
if(vErrors === null){
vErrors = [err40];
}
else {
vErrors.push(err40);
}
errors++;
}
if(data5 < 100 || isNaN(data5)){
const err41 = {instancePath:instancePath+"/DATABASE_TIMEOUT_MS",schemaPath:"#/properties/DATABASE_TIMEOUT_MS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 100},message:"must be >= 100"};
if(vErrors === null){
vErrors = [err41];
}
else {
vErrors.push(err41);
}
errors++;
}
}
let data6 = data.ENVIRONMENT;
if(!((data6 === "production") || (data6 === "staging"))){
const err42 = {instancePath:instancePath+"/ENVIRONMENT",schemaPath:"#/properties/ENVIRONMENT/enum",keyword:"enum",params:{allowedValues: schema0.properties.ENVIRONMENT.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err42];
}
else {
vErrors.push(err42);
}
errors++;
}
if(data.PUBLIC_BASE_URL !== undefined){
let data7 = data.PUBLIC_BASE_URL;
if(typeof data7 !== "string"){
let dataType6 = typeof data7;
let coerced6 = undefined;
if(!(coerced6 !== undefined)){
if(dataType6 == "number" || dataType6 == "boolean"){
coerced6 = "" + data7;
}
else if(data7 === null){
coerced6 = "";
}
else {
const err43 = {instancePath:instancePath+"/PUBLIC_BASE_URL",schemaPath:"#/properties/PUBLIC_BASE_URL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err43];
}
else {
vErrors.push(err43);
}
errors++;
}
}
if(coerced6 !== undefined){
data7 = coerced6;
if(data !== undefined){
data["PUBLIC_BASE_URL"] = coerced6;
}
}
}
if(typeof data7 === "string"){
if(!pattern1.test(data7)){
const err44 = {instancePath:instancePath+"/PUBLIC_BASE_URL",schemaPath:"#/properties/PUBLIC_BASE_URL/pattern",keyword:"pattern",params:{pattern: "^https?://[^\\s]+/v1$"},message:"must match pattern \""+"^https?://[^\\s]+/v1$"+"\""};
if(vErrors === null){
vErrors = [err44];
}
else {
vErrors.push(err44);
}
errors++;
}
}
}
if(data.STAGING_BASE_URL !== undefined){
let data8 = data.STAGING_BASE_URL;
if(typeof data8 !== "string"){
let dataType7 = typeof data8;
let coerced7 = undefined;
if(!(coerced7 !== undefined)){
if(dataType7 == "number" || dataType7 == "boolean"){
coerced7 = "" + data8;
}
else if(data8 === null){
coerced7 = "";
}
else {
const err45 = {instancePath:instancePath+"/STAGING_BASE_URL",schemaPath:"#/properties/STAGING_BASE_URL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err45];
}
else {
vErrors.push(err45);
}
errors++;
}
}
if(coerced7 !== undefined){
data8 = coerced7;
if(data !== undefined){
data["STAGING_BASE_URL"] = coerced7;
}
}
}
if(typeof data8 === "string"){
if(!pattern1.test(data8)){
const err46 = {instancePath:instancePath+"/STAGING_BASE_URL",schemaPath:"#/properties/STAGING_BASE_URL/pattern",keyword:"pattern",params:{pattern: "^https?://[^\\s]+/v1$"},message:"must match pattern \""+"^https?://[^\\s]+/v1$"+"\""};
if(vErrors === null){
vErrors = [err46];
}
else {
vErrors.push(err46);
}
errors++;
}
}
}
let data9 = data.LOG_LEVEL;
if(!(((((((data9 === "fatal") || (data9 === "error")) || (data9 === "warn")) || (data9 === "info")) || (data9 === "debug")) || (data9 === "trace")) || (data9 === "silent"))){
const err47 = {instancePath:instancePath+"/LOG_LEVEL",schemaPath:"#/properties/LOG_LEVEL/enum",keyword:"enum",params:{allowedValues: schema0.properties.LOG_LEVEL.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err47];
}
else {
vErrors.push(err47);
}
errors++;
}
let data10 = data.BODY_LIMIT;
if(!(((typeof data10 == "number") && (!(data10 % 1) && !isNaN(data10))) && (isFinite(data10)))){
let dataType8 = typeof data10;
let coerced8 = undefined;
if(!(coerced8 !== undefined)){
if(dataType8 === "boolean" || data10 === null
              || (dataType8 === "string" && data10 && data10 == +data10 && !(data10 % 1))){
coerced8 = +data10;
}
else {
const err48 = {instancePath:instancePath+"/BODY_LIMIT",schemaPath:"#/properties/BODY_LIMIT/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err48];
}
else {
vErrors.push(err48);
}
errors++;
}
}
if(coerced8 !== undefined){
data10 = coerced8;
if(data !== undefined){
data["BODY_LIMIT"] = coerced8;
}
}
}
if((typeof data10 == "number") && (isFinite(data10))){
if(data10 > 104857600 || isNaN(data10)){
const err49 = {instancePath:instancePath+"/BODY_LIMIT",schemaPath:"#/properties/BODY_LIMIT/maximum",keyword:"maximum",params:{comparison: "<=", limit: 104857600},message:"must be <= 104857600"};
if(vErrors === null){
vErrors = [err49];
}
else {
vErrors.push(err49);
}
errors++;
}
if(data10 < 1024 || isNaN(data10)){
const err50 = {instancePath:instancePath+"/BODY_LIMIT",schemaPath:"#/properties/BODY_LIMIT/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1024},message:"must be >= 1024"};
if(vErrors === null){
vErrors = [err50];
}
else {
vErrors.push(err50);
}
errors++;
}
}
let data11 = data.MAX_CONNECTIONS;
if(!(((typeof data11 == "number") && (!(data11 % 1) && !isNaN(data11))) && (isFinite(data11)))){
let dataType9 = typeof data11;
let coerced9 = undefined;
if(!(coerced9 !== undefined)){
if(dataType9 === "boolean" || data11 === null
              || (dataType9 === "string" && data11 && data11 == +data11 && !(data11 % 1))){
coerced9 = +data11;
}
else {
const err51 = {instancePath:instancePath+"/MAX_CONNECTIONS",schemaPath:"#/properties/MAX_CONNECTIONS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err51];
}
else {
vErrors.push(err51);
}
errors++;
}
}
if(coerced9 !== undefined){
data11 = coerced9;
if(data !== undefined){
data["MAX_CONNECTIONS"] = coerced9;
}
}
}
if((typeof data11 == "number") && (isFinite(data11))){
if(data11 > 1000000 || isNaN(data11)){
const err52 = {instancePath:instancePath+"/MAX_CONNECTIONS",schemaPath:"#/properties/MAX_CONNECTIONS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 1000000},message:"must be <= 1000000"};
if(vErrors === null){
vErrors = [err52];
}
else {
vErrors.push(err52);
}
errors++;
}
if(data11 < 16 || isNaN(data11)){
const err53 = {instancePath:instancePath+"/MAX_CONNECTIONS",schemaPath:"#/properties/MAX_CONNECTIONS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 16},message:"must be >= 16"};
if(vErrors === null){
vErrors = [err53];
}
else {
vErrors.push(err53);
}
errors++;
}
}
if(data.REDIS_URL !== undefined){
let data12 = data.REDIS_URL;
if(typeof data12 !== "string"){
let dataType10 = typeof data12;
let coerced10 = undefined;
if(!(coerced10 !== undefined)){
if(dataType10 == "number" || dataType10 == "boolean"){
coerced10 = "" + data12;
}
else if(data12 === null){
coerced10 = "";
}
else {
const err54 = {instancePath:instancePath+"/REDIS_URL",schemaPath:"#/properties/REDIS_URL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err54];
}
else {
vErrors.push(err54);
}
errors++;
}
}
if(coerced10 !== undefined){
data12 = coerced10;
if(data !== undefined){
data["REDIS_URL"] = coerced10;
}
}
}
if(typeof data12 === "string"){
if(!pattern3.test(data12)){
const err55 = {instancePath:instancePath+"/REDIS_URL",schemaPath:"#/properties/REDIS_URL/pattern",keyword:"pattern",params:{pattern: "^rediss?://"},message:"must match pattern \""+"^rediss?://"+"\""};
if(vErrors === null){
vErrors = [err55];
}
else {
vErrors.push(err55);
}
errors++;
}
}
}
let data13 = data.REDIS_KEY_PREFIX;
if(typeof data13 !== "string"){
let dataType11 = typeof data13;
let coerced11 = undefined;
if(!(coerced11 !== undefined)){
if(dataType11 == "number" || dataType11 == "boolean"){
coerced11 = "" + data13;
}
else if(data13 === null){
coerced11 = "";
}
else {
const err56 = {instancePath:instancePath+"/REDIS_KEY_PREFIX",schemaPath:"#/properties/REDIS_KEY_PREFIX/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err56];
}
else {
vErrors.push(err56);
}
errors++;
}
}
if(coerced11 !== undefined){
data13 = coerced11;
if(data !== undefined){
data["REDIS_KEY_PREFIX"] = coerced11;
}
}
}
if(typeof data13 === "string"){
if(!pattern4.test(data13)){
const err57 = {instancePath:instancePath+"/REDIS_KEY_PREFIX",schemaPath:"#/properties/REDIS_KEY_PREFIX/pattern",keyword:"pattern",params:{pattern: "^[A-Za-z0-9:_.-]{0,64}$"},message:"must match pattern \""+"^[A-Za-z0-9:_.-]{0,64}$"+"\""};
if(vErrors === null){
vErrors = [err57];
}
else {
vErrors.push(err57);
}
errors++;
}
}
let data14 = data.REDIS_TIMEOUT_MS;
if(!(((typeof data14 == "number") && (!(data14 % 1) && !isNaN(data14))) && (isFinite(data14)))){
let dataType12 = typeof data14;
let coerced12 = undefined;
if(!(coerced12 !== undefined)){
if(dataType12 === "boolean" || data14 === null
              || (dataType12 === "string" && data14 && data14 == +data14 && !(data14 % 1))){
coerced12 = +data14;
}
else {
const err58 = {instancePath:instancePath+"/REDIS_TIMEOUT_MS",schemaPath:"#/properties/REDIS_TIMEOUT_MS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err58];
}
else {
vErrors.push(err58);
}
errors++;
}
}
if(coerced12 !== undefined){
data14 = coerced12;
if(data !== undefined){
data["REDIS_TIMEOUT_MS"] = coerced12;
}
}
}
if((typeof data14 == "number") && (isFinite(data14))){
if(data14 > 10000 || isNaN(data14)){
const err59 = {instancePath:instancePath+"/REDIS_TIMEOUT_MS",schemaPath:"#/properties/REDIS_TIMEOUT_MS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 10000},message:"must be <= 10000"};
if(vErrors === null){
vErrors = [err59];
}
else {
vErrors.push(err59);
}
errors++;
}
if(data14 < 10 || isNaN(data14)){
const err60 = {instancePath:instancePath+"/REDIS_TIMEOUT_MS",schemaPath:"#/properties/REDIS_TIMEOUT_MS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 10},message:"must be >= 10"};
if(vErrors === null){
vErrors = [err60];
}
else {
vErrors.push(err60);
}
errors++;
}
}
let data15 = data.TRUST_PROXY;
if(typeof data15 !== "string"){
let dataType13 = typeof data15;
let coerced13 = undefined;
if(!(coerced13 !== undefined)){
if(dataType13 == "number" || dataType13 == "boolean"){
coerced13 = "" + data15;
}
else if(data15 === null){
coerced13 = "";
}
else {
const err61 = {instancePath:instancePath+"/TRUST_PROXY",schemaPath:"#/properties/TRUST_PROXY/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err61];
}
else {
vErrors.push(err61);
}
errors++;
}
}
if(coerced13 !== undefined){
data15 = coerced13;
if(data !== undefined){
data["TRUST_PROXY"] = coerced13;
}
}
}
if(typeof data15 === "string"){
if(!pattern5.test(data15)){
const err62 = {instancePath:instancePath+"/TRUST_PROXY",schemaPath:"#/properties/TRUST_PROXY/pattern",keyword:"pattern",params:{pattern: "^(true|false|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+)$"},message:"must match pattern \""+"^(true|false|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+)$"+"\""};
if(vErrors === null){
vErrors = [err62];
}
else {
vErrors.push(err62);
}
errors++;
}
}
if(data.PLATFORM_DOMAIN !== undefined){
let data16 = data.PLATFORM_DOMAIN;
if(typeof data16 !== "string"){
let dataType14 = typeof data16;
let coerced14 = undefined;
if(!(coerced14 !== undefined)){
if(dataType14 == "number" || dataType14 == "boolean"){
coerced14 = "" + data16;
}
else if(data16 === null){
coerced14 = "";
}
else {
const err63 = {instancePath:instancePath+"/PLATFORM_DOMAIN",schemaPath:"#/properties/PLATFORM_DOMAIN/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err63];
}
else {
vErrors.push(err63);
}
errors++;
}
}
if(coerced14 !== undefined){
data16 = coerced14;
if(data !== undefined){
data["PLATFORM_DOMAIN"] = coerced14;
}
}
}
if(typeof data16 === "string"){
if(!pattern6.test(data16)){
const err64 = {instancePath:instancePath+"/PLATFORM_DOMAIN",schemaPath:"#/properties/PLATFORM_DOMAIN/pattern",keyword:"pattern",params:{pattern: "^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"},message:"must match pattern \""+"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"+"\""};
if(vErrors === null){
vErrors = [err64];
}
else {
vErrors.push(err64);
}
errors++;
}
}
}
if(data.PLATFORM_DNS_TARGET !== undefined){
let data17 = data.PLATFORM_DNS_TARGET;
if(typeof data17 !== "string"){
let dataType15 = typeof data17;
let coerced15 = undefined;
if(!(coerced15 !== undefined)){
if(dataType15 == "number" || dataType15 == "boolean"){
coerced15 = "" + data17;
}
else if(data17 === null){
coerced15 = "";
}
else {
const err65 = {instancePath:instancePath+"/PLATFORM_DNS_TARGET",schemaPath:"#/properties/PLATFORM_DNS_TARGET/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err65];
}
else {
vErrors.push(err65);
}
errors++;
}
}
if(coerced15 !== undefined){
data17 = coerced15;
if(data !== undefined){
data["PLATFORM_DNS_TARGET"] = coerced15;
}
}
}
if(typeof data17 === "string"){
if(!pattern6.test(data17)){
const err66 = {instancePath:instancePath+"/PLATFORM_DNS_TARGET",schemaPath:"#/properties/PLATFORM_DNS_TARGET/pattern",keyword:"pattern",params:{pattern: "^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"},message:"must match pattern \""+"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"+"\""};
if(vErrors === null){
vErrors = [err66];
}
else {
vErrors.push(err66);
}
errors++;
}
}
}
if(data.DNS_RESOLVERS !== undefined){
let data18 = data.DNS_RESOLVERS;
if(typeof data18 !== "string"){
let dataType16 = typeof data18;
let coerced16 = undefined;
if(!(coerced16 !== undefined)){
if(dataType16 == "number" || dataType16 == "boolean"){
coerced16 = "" + data18;
}
else if(data18 === null){
coerced16 = "";
}
else {
const err67 = {instancePath:instancePath+"/DNS_RESOLVERS",schemaPath:"#/properties/DNS_RESOLVERS/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err67];
}
else {
vErrors.push(err67);
}
errors++;
}
}
if(coerced16 !== undefined){
data18 = coerced16;
if(data !== undefined){
data["DNS_RESOLVERS"] = coerced16;
}
}
}
if(typeof data18 === "string"){
if(!pattern8.test(data18)){
const err68 = {instancePath:instancePath+"/DNS_RESOLVERS",schemaPath:"#/properties/DNS_RESOLVERS/pattern",keyword:"pattern",params:{pattern: "^[0-9A-Fa-f.:\\[\\], ]+$"},message:"must match pattern \""+"^[0-9A-Fa-f.:\\[\\], ]+$"+"\""};
if(vErrors === null){
vErrors = [err68];
}
else {
vErrors.push(err68);
}
errors++;
}
}
}
if(data.ADMIN_TOKEN !== undefined){
let data19 = data.ADMIN_TOKEN;
if(typeof data19 !== "string"){
let dataType17 = typeof data19;
let coerced17 = undefined;
if(!(coerced17 !== undefined)){
if(dataType17 == "number" || dataType17 == "boolean"){
coerced17 = "" + data19;
}
else if(data19 === null){
coerced17 = "";
}
else {
const err69 = {instancePath:instancePath+"/ADMIN_TOKEN",schemaPath:"#/properties/ADMIN_TOKEN/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err69];
}
else {
vErrors.push(err69);
}
errors++;
}
}
if(coerced17 !== undefined){
data19 = coerced17;
if(data !== undefined){
data["ADMIN_TOKEN"] = coerced17;
}
}
}
if(typeof data19 === "string"){
if(!pattern9.test(data19)){
const err70 = {instancePath:instancePath+"/ADMIN_TOKEN",schemaPath:"#/properties/ADMIN_TOKEN/pattern",keyword:"pattern",params:{pattern: "^[\\x21-\\x7e]{32,512}$"},message:"must match pattern \""+"^[\\x21-\\x7e]{32,512}$"+"\""};
if(vErrors === null){
vErrors = [err70];
}
else {
vErrors.push(err70);
}
errors++;
}
}
}
if(data.HTTPS_PORT !== undefined){
let data20 = data.HTTPS_PORT;
if(!(((typeof data20 == "number") && (!(data20 % 1) && !isNaN(data20))) && (isFinite(data20)))){
let dataType18 = typeof data20;
let coerced18 = undefined;
if(!(coerced18 !== undefined)){
if(dataType18 === "boolean" || data20 === null
              || (dataType18 === "string" && data20 && data20 == +data20 && !(data20 % 1))){
coerced18 = +data20;
}
else {
const err71 = {instancePath:instancePath+"/HTTPS_PORT",schemaPath:"#/properties/HTTPS_PORT/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err71];
}
else {
vErrors.push(err71);
}
errors++;
}
}
if(coerced18 !== undefined){
data20 = coerced18;
if(data !== undefined){
data["HTTPS_PORT"] = coerced18;
}
}
}
if((typeof data20 == "number") && (isFinite(data20))){
if(data20 > 65535 || isNaN(data20)){
const err72 = {instancePath:instancePath+"/HTTPS_PORT",schemaPath:"#/properties/HTTPS_PORT/maximum",keyword:"maximum",params:{comparison: "<=", limit: 65535},message:"must be <= 65535"};
if(vErrors === null){
vErrors = [err72];
}
else {
vErrors.push(err72);
}
errors++;
}
if(data20 < 0 || isNaN(data20)){
const err73 = {instancePath:instancePath+"/HTTPS_PORT",schemaPath:"#/properties/HTTPS_PORT/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0"};
if(vErrors === null){
vErrors = [err73];
}
else {
vErrors.push(err73);
}
errors++;
}
}
}
let data21 = data.ACME_DIRECTORY_URL;
if(typeof data21 !== "string"){
let dataType19 = typeof data21;
let coerced19 = undefined;
if(!(coerced19 !== undefined)){
if(dataType19 == "number" || dataType19 == "boolean"){
coerced19 = "" + data21;
}
else if(data21 === null){
coerced19 = "";
}
else {
const err74 = {instancePath:instancePath+"/ACME_DIRECTORY_URL",schemaPath:"#/properties/ACME_DIRECTORY_URL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err74];
}
else {
vErrors.push(err74);
}
errors++;
}
}
if(coerced19 !== undefined){
data21 = coerced19;
if(data !== undefined){
data["ACME_DIRECTORY_URL"] = coerced19;
}
}
}
if(typeof data21 === "string"){
if(!pattern10.test(data21)){
const err75 = {instancePath:instancePath+"/ACME_DIRECTORY_URL",schemaPath:"#/properties/ACME_DIRECTORY_URL/pattern",keyword:"pattern",params:{pattern: "^https?://[^\\s]+$"},message:"must match pattern \""+"^https?://[^\\s]+$"+"\""};
if(vErrors === null){
vErrors = [err75];
}
else {
vErrors.push(err75);
}
errors++;
}
}
if(data.ACME_EMAIL !== undefined){
let data22 = data.ACME_EMAIL;
if(typeof data22 !== "string"){
let dataType20 = typeof data22;
let coerced20 = undefined;
if(!(coerced20 !== undefined)){
if(dataType20 == "number" || dataType20 == "boolean"){
coerced20 = "" + data22;
}
else if(data22 === null){
coerced20 = "";
}
else {
const err76 = {instancePath:instancePath+"/ACME_EMAIL",schemaPath:"#/properties/ACME_EMAIL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err76];
}
else {
vErrors.push(err76);
}
errors++;
}
}
if(coerced20 !== undefined){
data22 = coerced20;
if(data !== undefined){
data["ACME_EMAIL"] = coerced20;
}
}
}
if(typeof data22 === "string"){
if(!pattern11.test(data22)){
const err77 = {instancePath:instancePath+"/ACME_EMAIL",schemaPath:"#/properties/ACME_EMAIL/pattern",keyword:"pattern",params:{pattern: "^[^\\s@]+@[^\\s@]+$"},message:"must match pattern \""+"^[^\\s@]+@[^\\s@]+$"+"\""};
if(vErrors === null){
vErrors = [err77];
}
else {
vErrors.push(err77);
}
errors++;
}
}
}
if(data.ACME_CA_FILE !== undefined){
let data23 = data.ACME_CA_FILE;
if(typeof data23 !== "string"){
let dataType21 = typeof data23;
let coerced21 = undefined;
if(!(coerced21 !== undefined)){
if(dataType21 == "number" || dataType21 == "boolean"){
coerced21 = "" + data23;
}
else if(data23 === null){
coerced21 = "";
}
else {
const err78 = {instancePath:instancePath+"/ACME_CA_FILE",schemaPath:"#/properties/ACME_CA_FILE/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err78];
}
else {
vErrors.push(err78);
}
errors++;
}
}
if(coerced21 !== undefined){
data23 = coerced21;
if(data !== undefined){
data["ACME_CA_FILE"] = coerced21;
}
}
}
if(typeof data23 === "string"){
if(func1(data23) < 1){
const err79 = {instancePath:instancePath+"/ACME_CA_FILE",schemaPath:"#/properties/ACME_CA_FILE/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters"};
if(vErrors === null){
vErrors = [err79];
}
else {
vErrors.push(err79);
}
errors++;
}
}
}
let data24 = data.ACME_CAA_DOMAINS;
if(typeof data24 !== "string"){
let dataType22 = typeof data24;
let coerced22 = undefined;
if(!(coerced22 !== undefined)){
if(dataType22 == "number" || dataType22 == "boolean"){
coerced22 = "" + data24;
}
else if(data24 === null){
coerced22 = "";
}
else {
const err80 = {instancePath:instancePath+"/ACME_CAA_DOMAINS",schemaPath:"#/properties/ACME_CAA_DOMAINS/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err80];
}
else {
vErrors.push(err80);
}
errors++;
}
}
if(coerced22 !== undefined){
data24 = coerced22;
if(data !== undefined){
data["ACME_CAA_DOMAINS"] = coerced22;
}
}
}
if(typeof data24 === "string"){
if(!pattern12.test(data24)){
const err81 = {instancePath:instancePath+"/ACME_CAA_DOMAINS",schemaPath:"#/properties/ACME_CAA_DOMAINS/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9.-]+(,[a-z0-9.-]+)*$"},message:"must match pattern \""+"^[a-z0-9.-]+(,[a-z0-9.-]+)*$"+"\""};
if(vErrors === null){
vErrors = [err81];
}
else {
vErrors.push(err81);
}
errors++;
}
}
if(data.CERTIFICATE_ENCRYPTION_KEY !== undefined){
let data25 = data.CERTIFICATE_ENCRYPTION_KEY;
if(typeof data25 !== "string"){
let dataType23 = typeof data25;
let coerced23 = undefined;
if(!(coerced23 !== undefined)){
if(dataType23 == "number" || dataType23 == "boolean"){
coerced23 = "" + data25;
}
else if(data25 === null){
coerced23 = "";
}
else {
const err82 = {instancePath:instancePath+"/CERTIFICATE_ENCRYPTION_KEY",schemaPath:"#/properties/CERTIFICATE_ENCRYPTION_KEY/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err82];
}
else {
vErrors.push(err82);
}
errors++;
}
}
if(coerced23 !== undefined){
data25 = coerced23;
if(data !== undefined){
data["CERTIFICATE_ENCRYPTION_KEY"] = coerced23;
}
}
}
if(typeof data25 === "string"){
if(!pattern13.test(data25)){
const err83 = {instancePath:instancePath+"/CERTIFICATE_ENCRYPTION_KEY",schemaPath:"#/properties/CERTIFICATE_ENCRYPTION_KEY/pattern",keyword:"pattern",params:{pattern: "^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$"},message:"must match pattern \""+"^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$"+"\""};
if(vErrors === null){
vErrors = [err83];
}
else {
vErrors.push(err83);
}
errors++;
}
}
}
let data26 = data.DOMAIN_WORKER_INTERVAL_MS;
if(!(((typeof data26 == "number") && (!(data26 % 1) && !isNaN(data26))) && (isFinite(data26)))){
let dataType24 = typeof data26;
let coerced24 = undefined;
if(!(coerced24 !== undefined)){
if(dataType24 === "boolean" || data26 === null
              || (dataType24 === "string" && data26 && data26 == +data26 && !(data26 % 1))){
coerced24 = +data26;
}
else {
const err84 = {instancePath:instancePath+"/DOMAIN_WORKER_INTERVAL_MS",schemaPath:"#/properties/DOMAIN_WORKER_INTERVAL_MS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err84];
}
else {
vErrors.push(err84);
}
errors++;
}
}
if(coerced24 !== undefined){
data26 = coerced24;
if(data !== undefined){
data["DOMAIN_WORKER_INTERVAL_MS"] = coerced24;
}
}
}
if((typeof data26 == "number") && (isFinite(data26))){
if(data26 > 3600000 || isNaN(data26)){
const err85 = {instancePath:instancePath+"/DOMAIN_WORKER_INTERVAL_MS",schemaPath:"#/properties/DOMAIN_WORKER_INTERVAL_MS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 3600000},message:"must be <= 3600000"};
if(vErrors === null){
vErrors = [err85];
}
else {
vErrors.push(err85);
}
errors++;
}
if(data26 < 100 || isNaN(data26)){
const err86 = {instancePath:instancePath+"/DOMAIN_WORKER_INTERVAL_MS",schemaPath:"#/properties/DOMAIN_WORKER_INTERVAL_MS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 100},message:"must be >= 100"};
if(vErrors === null){
vErrors = [err86];
}
else {
vErrors.push(err86);
}
errors++;
}
}
let data27 = data.RESPONSE_CACHE;
if(!((data27 === "on") || (data27 === "off"))){
const err87 = {instancePath:instancePath+"/RESPONSE_CACHE",schemaPath:"#/properties/RESPONSE_CACHE/enum",keyword:"enum",params:{allowedValues: schema0.properties.RESPONSE_CACHE.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err87];
}
else {
vErrors.push(err87);
}
errors++;
}
let data28 = data.RESPONSE_CACHE_MAX_BYTES;
if(!(((typeof data28 == "number") && (!(data28 % 1) && !isNaN(data28))) && (isFinite(data28)))){
let dataType25 = typeof data28;
let coerced25 = undefined;
if(!(coerced25 !== undefined)){
if(dataType25 === "boolean" || data28 === null
              || (dataType25 === "string" && data28 && data28 == +data28 && !(data28 % 1))){
coerced25 = +data28;
}
else {
const err88 = {instancePath:instancePath+"/RESPONSE_CACHE_MAX_BYTES",schemaPath:"#/properties/RESPONSE_CACHE_MAX_BYTES/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err88];
}
else {
vErrors.push(err88);
}
errors++;
}
}
if(coerced25 !== undefined){
data28 = coerced25;
if(data !== undefined){
data["RESPONSE_CACHE_MAX_BYTES"] = coerced25;
}
}
}
if((typeof data28 == "number") && (isFinite(data28))){
if(data28 > 17179869184 || isNaN(data28)){
const err89 = {instancePath:instancePath+"/RESPONSE_CACHE_MAX_BYTES",schemaPath:"#/properties/RESPONSE_CACHE_MAX_BYTES/maximum",keyword:"maximum",params:{comparison: "<=", limit: 17179869184},message:"must be <= 17179869184"};
if(vErrors === null){
vErrors = [err89];
}
else {
vErrors.push(err89);
}
errors++;
}
if(data28 < 0 || isNaN(data28)){
const err90 = {instancePath:instancePath+"/RESPONSE_CACHE_MAX_BYTES",schemaPath:"#/properties/RESPONSE_CACHE_MAX_BYTES/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0"};
if(vErrors === null){
vErrors = [err90];
}
else {
vErrors.push(err90);
}
errors++;
}
}
if(data.WEBHOOK_ENCRYPTION_KEY !== undefined){
let data29 = data.WEBHOOK_ENCRYPTION_KEY;
if(typeof data29 !== "string"){
let dataType26 = typeof data29;
let coerced26 = undefined;
if(!(coerced26 !== undefined)){
if(dataType26 == "number" || dataType26 == "boolean"){
coerced26 = "" + data29;
}
else if(data29 === null){
coerced26 = "";
}
else {
const err91 = {instancePath:instancePath+"/WEBHOOK_ENCRYPTION_KEY",schemaPath:"#/properties/WEBHOOK_ENCRYPTION_KEY/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err91];
}
else {
vErrors.push(err91);
}
errors++;
}
}
if(coerced26 !== undefined){
data29 = coerced26;
if(data !== undefined){
data["WEBHOOK_ENCRYPTION_KEY"] = coerced26;
}
}
}
if(typeof data29 === "string"){
if(!pattern13.test(data29)){
const err92 = {instancePath:instancePath+"/WEBHOOK_ENCRYPTION_KEY",schemaPath:"#/properties/WEBHOOK_ENCRYPTION_KEY/pattern",keyword:"pattern",params:{pattern: "^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$"},message:"must match pattern \""+"^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$"+"\""};
if(vErrors === null){
vErrors = [err92];
}
else {
vErrors.push(err92);
}
errors++;
}
}
}
if(data.WEBHOOK_PREVIOUS_ENCRYPTION_KEYS !== undefined){
let data30 = data.WEBHOOK_PREVIOUS_ENCRYPTION_KEYS;
if(typeof data30 !== "string"){
let dataType27 = typeof data30;
let coerced27 = undefined;
if(!(coerced27 !== undefined)){
if(dataType27 == "number" || dataType27 == "boolean"){
coerced27 = "" + data30;
}
else if(data30 === null){
coerced27 = "";
}
else {
const err93 = {instancePath:instancePath+"/WEBHOOK_PREVIOUS_ENCRYPTION_KEYS",schemaPath:"#/properties/WEBHOOK_PREVIOUS_ENCRYPTION_KEYS/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err93];
}
else {
vErrors.push(err93);
}
errors++;
}
}
if(coerced27 !== undefined){
data30 = coerced27;
if(data !== undefined){
data["WEBHOOK_PREVIOUS_ENCRYPTION_KEYS"] = coerced27;
}
}
}
if(typeof data30 === "string"){
if(!pattern15.test(data30)){
const err94 = {instancePath:instancePath+"/WEBHOOK_PREVIOUS_ENCRYPTION_KEYS",schemaPath:"#/properties/WEBHOOK_PREVIOUS_ENCRYPTION_KEYS/pattern",keyword:"pattern",params:{pattern: "^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)(,([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=))*$"},message:"must match pattern \""+"^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)(,([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=))*$"+"\""};
if(vErrors === null){
vErrors = [err94];
}
else {
vErrors.push(err94);
}
errors++;
}
}
}
if(data.WEBHOOK_ALLOWED_NETWORKS !== undefined){
let data31 = data.WEBHOOK_ALLOWED_NETWORKS;
if(typeof data31 !== "string"){
let dataType28 = typeof data31;
let coerced28 = undefined;
if(!(coerced28 !== undefined)){
if(dataType28 == "number" || dataType28 == "boolean"){
coerced28 = "" + data31;
}
else if(data31 === null){
coerced28 = "";
}
else {
const err95 = {instancePath:instancePath+"/WEBHOOK_ALLOWED_NETWORKS",schemaPath:"#/properties/WEBHOOK_ALLOWED_NETWORKS/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err95];
}
else {
vErrors.push(err95);
}
errors++;
}
}
if(coerced28 !== undefined){
data31 = coerced28;
if(data !== undefined){
data["WEBHOOK_ALLOWED_NETWORKS"] = coerced28;
}
}
}
if(typeof data31 === "string"){
if(!pattern16.test(data31)){
const err96 = {instancePath:instancePath+"/WEBHOOK_ALLOWED_NETWORKS",schemaPath:"#/properties/WEBHOOK_ALLOWED_NETWORKS/pattern",keyword:"pattern",params:{pattern: "^[0-9A-Fa-f.:/, ]+$"},message:"must match pattern \""+"^[0-9A-Fa-f.:/, ]+$"+"\""};
if(vErrors === null){
vErrors = [err96];
}
else {
vErrors.push(err96);
}
errors++;
}
}
}
let data32 = data.WEBHOOK_TIMEOUT_MS;
if(!(((typeof data32 == "number") && (!(data32 % 1) && !isNaN(data32))) && (isFinite(data32)))){
let dataType29 = typeof data32;
let coerced29 = undefined;
if(!(coerced29 !== undefined)){
if(dataType29 === "boolean" || data32 === null
              || (dataType29 === "string" && data32 && data32 == +data32 && !(data32 % 1))){
coerced29 = +data32;
}
else {
const err97 = {instancePath:instancePath+"/WEBHOOK_TIMEOUT_MS",schemaPath:"#/properties/WEBHOOK_TIMEOUT_MS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err97];
}
else {
vErrors.push(err97);
}
errors++;
}
}
if(coerced29 !== undefined){
data32 = coerced29;
if(data !== undefined){
data["WEBHOOK_TIMEOUT_MS"] = coerced29;
}
}
}
if((typeof data32 == "number") && (isFinite(data32))){
if(data32 > 60000 || isNaN(data32)){
const err98 = {instancePath:instancePath+"/WEBHOOK_TIMEOUT_MS",schemaPath:"#/properties/WEBHOOK_TIMEOUT_MS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 60000},message:"must be <= 60000"};
if(vErrors === null){
vErrors = [err98];
}
else {
vErrors.push(err98);
}
errors++;
}
if(data32 < 100 || isNaN(data32)){
const err99 = {instancePath:instancePath+"/WEBHOOK_TIMEOUT_MS",schemaPath:"#/properties/WEBHOOK_TIMEOUT_MS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 100},message:"must be >= 100"};
if(vErrors === null){
vErrors = [err99];
}
else {
vErrors.push(err99);
}
errors++;
}
}
let data33 = data.WEBHOOK_WORKER_INTERVAL_MS;
if(!(((typeof data33 == "number") && (!(data33 % 1) && !isNaN(data33))) && (isFinite(data33)))){
let dataType30 = typeof data33;
let coerced30 = undefined;
if(!(coerced30 !== undefined)){
if(dataType30 === "boolean" || data33 === null
              || (dataType30 === "string" && data33 && data33 == +data33 && !(data33 % 1))){
coerced30 = +data33;
}
else {
const err100 = {instancePath:instancePath+"/WEBHOOK_WORKER_INTERVAL_MS",schemaPath:"#/properties/WEBHOOK_WORKER_INTERVAL_MS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err100];
}
else {
vErrors.push(err100);
}
errors++;
}
}
if(coerced30 !== undefined){
data33 = coerced30;
if(data !== undefined){
data["WEBHOOK_WORKER_INTERVAL_MS"] = coerced30;
}
}
}
if((typeof data33 == "number") && (isFinite(data33))){
if(data33 > 3600000 || isNaN(data33)){
const err101 = {instancePath:instancePath+"/WEBHOOK_WORKER_INTERVAL_MS",schemaPath:"#/properties/WEBHOOK_WORKER_INTERVAL_MS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 3600000},message:"must be <= 3600000"};
if(vErrors === null){
vErrors = [err101];
}
else {
vErrors.push(err101);
}
errors++;
}
if(data33 < 50 || isNaN(data33)){
const err102 = {instancePath:instancePath+"/WEBHOOK_WORKER_INTERVAL_MS",schemaPath:"#/properties/WEBHOOK_WORKER_INTERVAL_MS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 50},message:"must be >= 50"};
if(vErrors === null){
vErrors = [err102];
}
else {
vErrors.push(err102);
}
errors++;
}
}
let data34 = data.WEBHOOK_RETENTION_DAYS;
if(!(((typeof data34 == "number") && (!(data34 % 1) && !isNaN(data34))) && (isFinite(data34)))){
let dataType31 = typeof data34;
let coerced31 = undefined;
if(!(coerced31 !== undefined)){
if(dataType31 === "boolean" || data34 === null
              || (dataType31 === "string" && data34 && data34 == +data34 && !(data34 % 1))){
coerced31 = +data34;
}
else {
const err103 = {instancePath:instancePath+"/WEBHOOK_RETENTION_DAYS",schemaPath:"#/properties/WEBHOOK_RETENTION_DAYS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err103];
}
else {
vErrors.push(err103);
}
errors++;
}
}
if(coerced31 !== undefined){
data34 = coerced31;
if(data !== undefined){
data["WEBHOOK_RETENTION_DAYS"] = coerced31;
}
}
}
if((typeof data34 == "number") && (isFinite(data34))){
if(data34 > 365 || isNaN(data34)){
const err104 = {instancePath:instancePath+"/WEBHOOK_RETENTION_DAYS",schemaPath:"#/properties/WEBHOOK_RETENTION_DAYS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 365},message:"must be <= 365"};
if(vErrors === null){
vErrors = [err104];
}
else {
vErrors.push(err104);
}
errors++;
}
if(data34 < 1 || isNaN(data34)){
const err105 = {instancePath:instancePath+"/WEBHOOK_RETENTION_DAYS",schemaPath:"#/properties/WEBHOOK_RETENTION_DAYS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err105];
}
else {
vErrors.push(err105);
}
errors++;
}
}
if(data.S3_BUCKET !== undefined){
let data35 = data.S3_BUCKET;
if(typeof data35 !== "string"){
let dataType32 = typeof data35;
let coerced32 = undefined;
if(!(coerced32 !== undefined)){
if(dataType32 == "number" || dataType32 == "boolean"){
coerced32 = "" + data35;
}
else if(data35 === null){
coerced32 = "";
}
else {
const err106 = {instancePath:instancePath+"/S3_BUCKET",schemaPath:"#/properties/S3_BUCKET/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err106];
}
else {
vErrors.push(err106);
}
errors++;
}
}
if(coerced32 !== undefined){
data35 = coerced32;
if(data !== undefined){
data["S3_BUCKET"] = coerced32;
}
}
}
if(typeof data35 === "string"){
if(!pattern17.test(data35)){
const err107 = {instancePath:instancePath+"/S3_BUCKET",schemaPath:"#/properties/S3_BUCKET/pattern",keyword:"pattern",params:{pattern: "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"},message:"must match pattern \""+"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"+"\""};
if(vErrors === null){
vErrors = [err107];
}
else {
vErrors.push(err107);
}
errors++;
}
}
}
if(data.S3_ENDPOINT !== undefined){
let data36 = data.S3_ENDPOINT;
if(typeof data36 !== "string"){
let dataType33 = typeof data36;
let coerced33 = undefined;
if(!(coerced33 !== undefined)){
if(dataType33 == "number" || dataType33 == "boolean"){
coerced33 = "" + data36;
}
else if(data36 === null){
coerced33 = "";
}
else {
const err108 = {instancePath:instancePath+"/S3_ENDPOINT",schemaPath:"#/properties/S3_ENDPOINT/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err108];
}
else {
vErrors.push(err108);
}
errors++;
}
}
if(coerced33 !== undefined){
data36 = coerced33;
if(data !== undefined){
data["S3_ENDPOINT"] = coerced33;
}
}
}
if(typeof data36 === "string"){
if(!pattern18.test(data36)){
const err109 = {instancePath:instancePath+"/S3_ENDPOINT",schemaPath:"#/properties/S3_ENDPOINT/pattern",keyword:"pattern",params:{pattern: "^https?://[^\\s/]+/?$"},message:"must match pattern \""+"^https?://[^\\s/]+/?$"+"\""};
if(vErrors === null){
vErrors = [err109];
}
else {
vErrors.push(err109);
}
errors++;
}
}
}
let data37 = data.S3_REGION;
if(typeof data37 !== "string"){
let dataType34 = typeof data37;
let coerced34 = undefined;
if(!(coerced34 !== undefined)){
if(dataType34 == "number" || dataType34 == "boolean"){
coerced34 = "" + data37;
}
else if(data37 === null){
coerced34 = "";
}
else {
const err110 = {instancePath:instancePath+"/S3_REGION",schemaPath:"#/properties/S3_REGION/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err110];
}
else {
vErrors.push(err110);
}
errors++;
}
}
if(coerced34 !== undefined){
data37 = coerced34;
if(data !== undefined){
data["S3_REGION"] = coerced34;
}
}
}
if(typeof data37 === "string"){
if(func1(data37) > 64){
const err111 = {instancePath:instancePath+"/S3_REGION",schemaPath:"#/properties/S3_REGION/maxLength",keyword:"maxLength",params:{limit: 64},message:"must NOT have more than 64 characters"};
if(vErrors === null){
vErrors = [err111];
}
else {
vErrors.push(err111);
}
errors++;
}
if(func1(data37) < 1){
const err112 = {instancePath:instancePath+"/S3_REGION",schemaPath:"#/properties/S3_REGION/minLength",keyword:"minLength",params:{limit: 1},message:"must NOT have fewer than 1 characters"};
if(vErrors === null){
vErrors = [err112];
}
else {
vErrors.push(err112);
}
errors++;
}
}
if(data.S3_FORCE_PATH_STYLE !== undefined){
let data38 = data.S3_FORCE_PATH_STYLE;
if(!((data38 === "true") || (data38 === "false"))){
const err113 = {instancePath:instancePath+"/S3_FORCE_PATH_STYLE",schemaPath:"#/properties/S3_FORCE_PATH_STYLE/enum",keyword:"enum",params:{allowedValues: schema0.properties.S3_FORCE_PATH_STYLE.enum},message:"must be equal to one of the allowed values"};
if(vErrors === null){
vErrors = [err113];
}
else {
vErrors.push(err113);
}
errors++;
}
}
let data39 = data.S3_PREFIX;
if(typeof data39 !== "string"){
let dataType35 = typeof data39;
let coerced35 = undefined;
if(!(coerced35 !== undefined)){
if(dataType35 == "number" || dataType35 == "boolean"){
coerced35 = "" + data39;
}
else if(data39 === null){
coerced35 = "";
}
else {
const err114 = {instancePath:instancePath+"/S3_PREFIX",schemaPath:"#/properties/S3_PREFIX/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err114];
}
else {
vErrors.push(err114);
}
errors++;
}
}
if(coerced35 !== undefined){
data39 = coerced35;
if(data !== undefined){
data["S3_PREFIX"] = coerced35;
}
}
}
if(typeof data39 === "string"){
if(!pattern19.test(data39)){
const err115 = {instancePath:instancePath+"/S3_PREFIX",schemaPath:"#/properties/S3_PREFIX/pattern",keyword:"pattern",params:{pattern: "^([A-Za-z0-9._-]+/)*$"},message:"must match pattern \""+"^([A-Za-z0-9._-]+/)*$"+"\""};
if(vErrors === null){
vErrors = [err115];
}
else {
vErrors.push(err115);
}
errors++;
}
}
if(data.MEDIA_BASE_URL !== undefined){
let data40 = data.MEDIA_BASE_URL;
if(typeof data40 !== "string"){
let dataType36 = typeof data40;
let coerced36 = undefined;
if(!(coerced36 !== undefined)){
if(dataType36 == "number" || dataType36 == "boolean"){
coerced36 = "" + data40;
}
else if(data40 === null){
coerced36 = "";
}
else {
const err116 = {instancePath:instancePath+"/MEDIA_BASE_URL",schemaPath:"#/properties/MEDIA_BASE_URL/type",keyword:"type",params:{type: "string"},message:"must be string"};
if(vErrors === null){
vErrors = [err116];
}
else {
vErrors.push(err116);
}
errors++;
}
}
if(coerced36 !== undefined){
data40 = coerced36;
if(data !== undefined){
data["MEDIA_BASE_URL"] = coerced36;
}
}
}
if(typeof data40 === "string"){
if(!pattern20.test(data40)){
const err117 = {instancePath:instancePath+"/MEDIA_BASE_URL",schemaPath:"#/properties/MEDIA_BASE_URL/pattern",keyword:"pattern",params:{pattern: "^https?://[^\\s]+[^/]$"},message:"must match pattern \""+"^https?://[^\\s]+[^/]$"+"\""};
if(vErrors === null){
vErrors = [err117];
}
else {
vErrors.push(err117);
}
errors++;
}
}
}
let data41 = data.PHOTO_MAX_BYTES;
if(!(((typeof data41 == "number") && (!(data41 % 1) && !isNaN(data41))) && (isFinite(data41)))){
let dataType37 = typeof data41;
let coerced37 = undefined;
if(!(coerced37 !== undefined)){
if(dataType37 === "boolean" || data41 === null
              || (dataType37 === "string" && data41 && data41 == +data41 && !(data41 % 1))){
coerced37 = +data41;
}
else {
const err118 = {instancePath:instancePath+"/PHOTO_MAX_BYTES",schemaPath:"#/properties/PHOTO_MAX_BYTES/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err118];
}
else {
vErrors.push(err118);
}
errors++;
}
}
if(coerced37 !== undefined){
data41 = coerced37;
if(data !== undefined){
data["PHOTO_MAX_BYTES"] = coerced37;
}
}
}
if((typeof data41 == "number") && (isFinite(data41))){
if(data41 > 104857600 || isNaN(data41)){
const err119 = {instancePath:instancePath+"/PHOTO_MAX_BYTES",schemaPath:"#/properties/PHOTO_MAX_BYTES/maximum",keyword:"maximum",params:{comparison: "<=", limit: 104857600},message:"must be <= 104857600"};
if(vErrors === null){
vErrors = [err119];
}
else {
vErrors.push(err119);
}
errors++;
}
if(data41 < 1024 || isNaN(data41)){
const err120 = {instancePath:instancePath+"/PHOTO_MAX_BYTES",schemaPath:"#/properties/PHOTO_MAX_BYTES/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1024},message:"must be >= 1024"};
if(vErrors === null){
vErrors = [err120];
}
else {
vErrors.push(err120);
}
errors++;
}
}
let data42 = data.MEDIA_CACHE_MAX_BYTES;
if(!(((typeof data42 == "number") && (!(data42 % 1) && !isNaN(data42))) && (isFinite(data42)))){
let dataType38 = typeof data42;
let coerced38 = undefined;
if(!(coerced38 !== undefined)){
if(dataType38 === "boolean" || data42 === null
              || (dataType38 === "string" && data42 && data42 == +data42 && !(data42 % 1))){
coerced38 = +data42;
}
else {
const err121 = {instancePath:instancePath+"/MEDIA_CACHE_MAX_BYTES",schemaPath:"#/properties/MEDIA_CACHE_MAX_BYTES/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err121];
}
else {
vErrors.push(err121);
}
errors++;
}
}
if(coerced38 !== undefined){
data42 = coerced38;
if(data !== undefined){
data["MEDIA_CACHE_MAX_BYTES"] = coerced38;
}
}
}
if((typeof data42 == "number") && (isFinite(data42))){
if(data42 > 17179869184 || isNaN(data42)){
const err122 = {instancePath:instancePath+"/MEDIA_CACHE_MAX_BYTES",schemaPath:"#/properties/MEDIA_CACHE_MAX_BYTES/maximum",keyword:"maximum",params:{comparison: "<=", limit: 17179869184},message:"must be <= 17179869184"};
if(vErrors === null){
vErrors = [err122];
}
else {
vErrors.push(err122);
}
errors++;
}
if(data42 < 0 || isNaN(data42)){
const err123 = {instancePath:instancePath+"/MEDIA_CACHE_MAX_BYTES",schemaPath:"#/properties/MEDIA_CACHE_MAX_BYTES/minimum",keyword:"minimum",params:{comparison: ">=", limit: 0},message:"must be >= 0"};
if(vErrors === null){
vErrors = [err123];
}
else {
vErrors.push(err123);
}
errors++;
}
}
let data43 = data.PHOTO_MAX_PIXELS;
if(!(((typeof data43 == "number") && (!(data43 % 1) && !isNaN(data43))) && (isFinite(data43)))){
let dataType39 = typeof data43;
let coerced39 = undefined;
if(!(coerced39 !== undefined)){
if(dataType39 === "boolean" || data43 === null
              || (dataType39 === "string" && data43 && data43 == +data43 && !(data43 % 1))){
coerced39 = +data43;
}
else {
const err124 = {instancePath:instancePath+"/PHOTO_MAX_PIXELS",schemaPath:"#/properties/PHOTO_MAX_PIXELS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err124];
}
else {
vErrors.push(err124);
}
errors++;
}
}
if(coerced39 !== undefined){
data43 = coerced39;
if(data !== undefined){
data["PHOTO_MAX_PIXELS"] = coerced39;
}
}
}
if((typeof data43 == "number") && (isFinite(data43))){
if(data43 > 268402689 || isNaN(data43)){
const err125 = {instancePath:instancePath+"/PHOTO_MAX_PIXELS",schemaPath:"#/properties/PHOTO_MAX_PIXELS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 268402689},message:"must be <= 268402689"};
if(vErrors === null){
vErrors = [err125];
}
else {
vErrors.push(err125);
}
errors++;
}
if(data43 < 10000 || isNaN(data43)){
const err126 = {instancePath:instancePath+"/PHOTO_MAX_PIXELS",schemaPath:"#/properties/PHOTO_MAX_PIXELS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 10000},message:"must be >= 10000"};
if(vErrors === null){
vErrors = [err126];
}
else {
vErrors.push(err126);
}
errors++;
}
}
let data44 = data.PHOTO_PROCESSING_CONCURRENCY;
if(!(((typeof data44 == "number") && (!(data44 % 1) && !isNaN(data44))) && (isFinite(data44)))){
let dataType40 = typeof data44;
let coerced40 = undefined;
if(!(coerced40 !== undefined)){
if(dataType40 === "boolean" || data44 === null
              || (dataType40 === "string" && data44 && data44 == +data44 && !(data44 % 1))){
coerced40 = +data44;
}
else {
const err127 = {instancePath:instancePath+"/PHOTO_PROCESSING_CONCURRENCY",schemaPath:"#/properties/PHOTO_PROCESSING_CONCURRENCY/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err127];
}
else {
vErrors.push(err127);
}
errors++;
}
}
if(coerced40 !== undefined){
data44 = coerced40;
if(data !== undefined){
data["PHOTO_PROCESSING_CONCURRENCY"] = coerced40;
}
}
}
if((typeof data44 == "number") && (isFinite(data44))){
if(data44 > 64 || isNaN(data44)){
const err128 = {instancePath:instancePath+"/PHOTO_PROCESSING_CONCURRENCY",schemaPath:"#/properties/PHOTO_PROCESSING_CONCURRENCY/maximum",keyword:"maximum",params:{comparison: "<=", limit: 64},message:"must be <= 64"};
if(vErrors === null){
vErrors = [err128];
}
else {
vErrors.push(err128);
}
errors++;
}
if(data44 < 1 || isNaN(data44)){
const err129 = {instancePath:instancePath+"/PHOTO_PROCESSING_CONCURRENCY",schemaPath:"#/properties/PHOTO_PROCESSING_CONCURRENCY/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1},message:"must be >= 1"};
if(vErrors === null){
vErrors = [err129];
}
else {
vErrors.push(err129);
}
errors++;
}
}
let data45 = data.PHOTO_SWEEP_INTERVAL_MS;
if(!(((typeof data45 == "number") && (!(data45 % 1) && !isNaN(data45))) && (isFinite(data45)))){
let dataType41 = typeof data45;
let coerced41 = undefined;
if(!(coerced41 !== undefined)){
if(dataType41 === "boolean" || data45 === null
              || (dataType41 === "string" && data45 && data45 == +data45 && !(data45 % 1))){
coerced41 = +data45;
}
else {
const err130 = {instancePath:instancePath+"/PHOTO_SWEEP_INTERVAL_MS",schemaPath:"#/properties/PHOTO_SWEEP_INTERVAL_MS/type",keyword:"type",params:{type: "integer"},message:"must be integer"};
if(vErrors === null){
vErrors = [err130];
}
else {
vErrors.push(err130);
}
errors++;
}
}
if(coerced41 !== undefined){
data45 = coerced41;
if(data !== undefined){
data["PHOTO_SWEEP_INTERVAL_MS"] = coerced41;
}
}
}
if((typeof data45 == "number") && (isFinite(data45))){
if(data45 > 86400000 || isNaN(data45)){
const err131 = {instancePath:instancePath+"/PHOTO_SWEEP_INTERVAL_MS",schemaPath:"#/properties/PHOTO_SWEEP_INTERVAL_MS/maximum",keyword:"maximum",params:{comparison: "<=", limit: 86400000},message:"must be <= 86400000"};
if(vErrors === null){
vErrors = [err131];
}
else {
vErrors.push(err131);
}
errors++;
}
if(data45 < 1000 || isNaN(data45)){
const err132 = {instancePath:instancePath+"/PHOTO_SWEEP_INTERVAL_MS",schemaPath:"#/properties/PHOTO_SWEEP_INTERVAL_MS/minimum",keyword:"minimum",params:{comparison: ">=", limit: 1000},message:"must be >= 1000"};
if(vErrors === null){
vErrors = [err132];
}
else {
vErrors.push(err132);
}
errors++;
}
}
}
else {
const err133 = {instancePath,schemaPath:"#/type",keyword:"type",params:{type: "object"},message:"must be object"};
if(vErrors === null){
vErrors = [err133];
}
else {
vErrors.push(err133);
}
errors++;
}
validate0.errors = vErrors;
return errors === 0;
}
