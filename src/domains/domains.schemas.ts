import { Type, type Static } from 'typebox'
import { nullableTimestamp as timestamp, StringEnum } from '../shapes.js'
import { CERTIFICATE_STATES, DOMAIN_STATES } from '../db/schema.js'

/** The records a customer is asked to create (see domain-name.ts). */
export const DNS_RECORD_TYPES = ['CNAME', 'ALIAS'] as const


export const DnsRecordSchema = Type.Object(
  {
    type: StringEnum(DNS_RECORD_TYPES, { description: '`CNAME` for a subdomain; `ALIAS` (or ANAME) for an apex domain, which cannot carry a CNAME' }),
    name: Type.String({ description: 'The record name in your DNS zone: the subdomain label, or `@` for the apex' }),
    value: Type.String({ description: "The platform's DNS target" }),
    ttl: Type.Integer({ description: 'Time to live, in seconds' }),
    note: Type.String({ description: 'What to do, in words' }),
  },
  { additionalProperties: false, description: 'The DNS record to create at your DNS provider' },
)

export const DomainSchema = Type.Object(
  {
    name: Type.String({ description: 'The domain, in its ASCII (IDNA) form', examples: ['shop.example.com'] }),
    unicodeName: Type.String({ description: 'The domain as people write it' }),
    apex: Type.Boolean({ description: 'True for a registrable domain (`example.com`), which needs ALIAS/ANAME instead of CNAME' }),
    primary: Type.Boolean({ description: "True for the project's primary domain" }),
    redirect: Type.Union(
      [
        Type.Object(
          { to: Type.String({ description: 'The domain requests are sent on to' }), status: Type.Integer({ description: 'The redirect status', examples: [301] }) },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'When set, every request to this domain is answered with a redirect to the same path and query on `to`' },
    ),
    dnsRecord: DnsRecordSchema,
    status: Type.Object(
      {
        state: StringEnum(DOMAIN_STATES, {
          description: '`pending`: DNS not checked yet; `verified`: the record points at the platform and the domain is served; `failed`: see `reason`',
        }),
        reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the last check failed, and what to do' }),
        checkedAt: timestamp('When DNS was last checked'),
        nextCheckAt: timestamp('When DNS is checked again in the background; null once verified, or after giving up'),
        verifiedAt: timestamp('When the domain was last verified'),
      },
      { additionalProperties: false, description: 'DNS verification of the domain' },
    ),
    certificate: Type.Object(
      {
        state: StringEnum(CERTIFICATE_STATES, {
          description: '`pending`: waits for verification or its turn; `issuing`/`renewing`: an ACME order is running; `issued`: served over HTTPS; `failed`: see `reason`',
        }),
        reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed, or why none is made' }),
        checkedAt: timestamp('When a certificate was last requested'),
        nextCheckAt: timestamp('When a certificate is next requested (issuance, retry or renewal)'),
        notBefore: timestamp('Start of validity of the certificate served'),
        notAfter: timestamp('End of validity of the certificate served'),
        renewAt: timestamp('When it is renewed: two thirds into its lifetime'),
      },
      { additionalProperties: false, description: "The domain's TLS certificate" },
    ),
    createdAt: Type.String({ format: 'date-time', description: 'When the domain was added' }),
  },
  { additionalProperties: false, description: 'A custom domain of a project, with its DNS and certificate states' },
)

export const RedirectSchema = Type.Object(
  {
    from: Type.String({ description: 'A domain of the project whose requests are redirected', examples: ['www.example.com'] }),
    to: Type.String({ description: "Another domain of the project, or its platform host, that receives them", examples: ['example.com'] }),
    status: Type.Integer({ minimum: 301, maximum: 301, description: 'The redirect status: 301 (moved permanently)', examples: [301] }),
  },
  { additionalProperties: false, description: 'A redirect between two hosts of a project' },
)

export const DomainSettingsSchema = Type.Object(
  {
    project: Type.String({ description: "The project's slug" }),
    platformHost: Type.Union([Type.String(), Type.Null()], { description: 'Where the project is published by default: `<slug>.<PLATFORM_DOMAIN>`' }),
    https: Type.Boolean({
      description:
        'Whether this service serves custom domains over HTTPS with certificates it obtains (CERTIFICATE_ENCRYPTION_KEY and HTTPS_PORT both set). False: domains are served over plain HTTP only, whatever their `certificate` state',
    }),
    primary: Type.Union([Type.String(), Type.Null()], { description: "The project's primary domain" }),
    redirects: Type.Array(RedirectSchema),
    domains: Type.Array(DomainSchema),
  },
  { additionalProperties: false, description: "A project's domains: `domains.primary`, `domains.redirects` and every domain with its states" },
)

const domainName = Type.String({ minLength: 1, maxLength: 300, description: 'A domain name; Unicode names are converted to their ASCII form' })

export const NewDomainSchema = Type.Object({ name: domainName }, { additionalProperties: false, examples: [{ name: 'shop.example.com' }] })
export const PrimaryDomainSchema = Type.Object(
  { name: Type.Union([domainName, Type.Null()], { description: 'A domain of the project, or null for none' }) },
  { additionalProperties: false, examples: [{ name: 'shop.example.com' }] },
)
export const NewRedirectSchema = Type.Object(
  {
    from: domainName,
    to: domainName,
    status: Type.Optional(Type.Integer({ minimum: 301, maximum: 301, default: 301, description: 'Only 301 is supported' })),
  },
  { additionalProperties: false, examples: [{ from: 'www.example.com', to: 'shop.example.com' }] },
)

export const ProjectParamsSchema = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }) })
export const DomainParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }),
  name: Type.String({ minLength: 1, maxLength: 300, description: 'The domain', examples: ['shop.example.com'] }),
})
export const RedirectParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }),
  from: Type.String({ minLength: 1, maxLength: 300, description: 'The redirected domain', examples: ['www.example.com'] }),
})

export type Domain = Static<typeof DomainSchema>
export type DnsRecord = Static<typeof DnsRecordSchema>
export type Redirect = Static<typeof RedirectSchema>
export type DomainSettings = Static<typeof DomainSettingsSchema>
