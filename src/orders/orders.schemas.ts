import { Type, type Static } from 'typebox'
import { MAX_INT53, MAX_PAGE_SIZE, pageQuerySchema, StringEnum } from '../shapes.js'
import { ORDER_STATUSES, PET_STATUSES } from '../db/schema.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'

const statusField = StringEnum(ORDER_STATUSES, { description: 'Where the adoption stands' })

export const NewOrderSchema = Type.Object(
  {
    petId: Type.Integer({
      format: 'int64',
      minimum: 1,
      maximum: MAX_INT53,
      description: 'The animal to adopt; it must be `available`',
      examples: [1],
    }),
  },
  { $id: 'NewOrder', additionalProperties: false, description: 'A request to adopt one animal', examples: [{ petId: 1 }] },
)

export const OrderSchema = Type.Object(
  {
    id: Type.Integer({ format: 'int64', minimum: 1, description: 'Unique identifier assigned by the service' }),
    petId: Type.Integer({ format: 'int64', description: 'The animal being adopted' }),
    status: statusField,
    createdAt: Type.String({ format: 'date-time', description: 'When the order was placed' }),
    complete: Type.Boolean({ description: 'True once the animal was delivered' }),
  },
  { $id: 'Order', additionalProperties: false, description: 'An adoption order for one animal' },
)

/** The fields of an Order, shared by the public shape and the admin API's. */
const orderFields = OrderSchema.properties

export const MAX_ENQUIRY_NAME = 200
export const MAX_ENQUIRY_CONTACT = 254
export const MAX_ENQUIRY_MESSAGE = 5000

export const EnquirySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_ENQUIRY_NAME, description: 'The name the enquirer gave' }),
    email: Type.Optional(Type.String({ maxLength: MAX_ENQUIRY_CONTACT, description: 'Their email address, when they gave one' })),
    phone: Type.Optional(Type.String({ maxLength: 40, description: 'Their phone number, when they gave one' })),
    message: Type.Optional(Type.String({ maxLength: MAX_ENQUIRY_MESSAGE, description: 'What they wrote, line breaks kept' })),
  },
  { additionalProperties: false, description: "Who asked to adopt through the project's adoption site (its enquiry form): a name, an email or a phone or both, and a message" },
)

export const AdoptionOrderSchema = Type.Object(
  {
    ...orderFields,
    enquiry: Type.Optional(EnquirySchema),
    petName: Type.String({ description: "The animal's name: as listed now, or as it was when the animal was removed" }),
    petStatus: Type.Union([StringEnum(PET_STATUSES), Type.Null()], {
      description: "The animal's status now; null once the animal was removed (its delivered and cancelled orders are kept)",
    }),
  },
  { $id: 'AdoptionOrder', additionalProperties: false, description: 'An adoption order, with its animal beside it (admin API)' },
)

export const AdoptionOrdersSchema = Type.Array(Type.Ref('AdoptionOrder'), {
  $id: 'AdoptionOrders',
  maxItems: MAX_PAGE_SIZE,
  description: 'A page of adoption orders, in ascending id order',
})

export const OrdersSchema = Type.Array(Type.Ref('Order'), { $id: 'Orders', maxItems: MAX_PAGE_SIZE, description: 'A page of orders, in ascending id order' })

export const ListOrdersQuerySchema = pageQuerySchema('orders', statusField, 'placed')

export const OrderIdParamsSchema = Type.Object({
  orderId: Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT53, description: 'The identifier of the order', examples: [1] }),
})

/** An order of a project, in the admin API's paths. */
export const ProjectOrderParamsSchema = Type.Object({ ...ProjectParamsSchema.properties, ...OrderIdParamsSchema.properties })

export type OrderStatus = (typeof ORDER_STATUSES)[number]
export type Order = Static<typeof OrderSchema>
export type AdoptionOrder = Static<typeof AdoptionOrderSchema>
export type ListOrdersQuery = Static<typeof ListOrdersQuerySchema>
