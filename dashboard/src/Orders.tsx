import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { type AdoptionOrder, api, messageOf, ORDER_STATUSES, type OrderStatus, page } from './api'
import { PetStatusBadge } from './Animals'
import { Badge, type BadgeTone, ColumnHeads, DateTime, ErrorMessage, FilterForm, Loading, RowActions, RowButton, StatusMessage, TableWrap } from './components'
import { type ConfirmOptions, useConfirm } from './dialogs'
import { SelectField } from './form-fields'
import { MoreButton, usePagedList } from './paged-list'
import { navigate, projectPath } from './router'

const PAGE_SIZE = 25

const STATUS_TONE: Record<OrderStatus, BadgeTone> = { placed: 'wait', approved: 'wait', delivered: 'good', cancelled: 'neutral' }

type Move = 'approve' | 'deliver' | 'cancel'

/** The moves an order in each status allows, in the order their buttons are shown. */
const MOVES: Record<OrderStatus, Move[]> = { placed: ['approve', 'cancel'], approved: ['deliver', 'cancel'], delivered: [], cancelled: [] }

/** Each move: its button, its confirmation (titled "<confirmLabel> <id>?"), and what it does to the animal, said before it is made. */
const MOVE: Record<Move, { label: string; confirm: Pick<ConfirmOptions, 'confirmLabel' | 'cancelLabel' | 'danger'>; says: (animal: string) => ComponentChildren }> = {
  approve: {
    label: 'Approve',
    confirm: { confirmLabel: 'Approve order' },
    says: (animal) => `The adoption of ${animal} is approved. ${animal} stays pending until the order is delivered.`,
  },
  deliver: {
    label: 'Deliver',
    confirm: { confirmLabel: 'Deliver order' },
    says: (animal) => (
      <>
        {animal} goes to their new home: the animal is marked <strong>sold</strong> and the order is complete. This cannot be undone.
      </>
    ),
  },
  cancel: {
    label: 'Cancel order',
    // The harmless choice is never called "Cancel" here.
    confirm: { confirmLabel: 'Cancel order', cancelLabel: 'Keep the order', danger: true },
    says: (animal) => (
      <>
        The order is cancelled and {animal} is <strong>available</strong> again, for anyone to order. This cannot be undone.
      </>
    ),
  },
}

/** Who asked through the adoption site's enquiry form, and what they wrote. */
function Enquiry({ enquiry }: { enquiry: NonNullable<AdoptionOrder['enquiry']> }) {
  return (
    <span class="enquiry">
      <br />
      Enquiry from <strong>{enquiry.name}</strong>
      {enquiry.email && (
        <>
          {' '}
          · <a href={`mailto:${enquiry.email}`}>{enquiry.email}</a>
        </>
      )}
      {enquiry.phone && (
        <>
          {' '}
          · <a href={`tel:${enquiry.phone.replace(/[^0-9+]/g, '')}`}>{enquiry.phone}</a>
        </>
      )}
      {enquiry.message && (
        <details>
          <summary>Message</summary>
          <p class="pre-line">{enquiry.message}</p>
        </details>
      )}
    </span>
  )
}

function confirmation(order: AdoptionOrder, move: Move): ConfirmOptions {
  const { confirm, says } = MOVE[move]
  return { ...confirm, title: `${confirm.confirmLabel} ${order.id}?`, body: <p>{says(order.petName)}</p> }
}

function statusOf(search: string): OrderStatus | '' {
  const status = new URLSearchParams(search).get('status') ?? ''
  return ORDER_STATUSES.includes(status as OrderStatus) ? (status as OrderStatus) : ''
}

/**
 * A project's adoption orders, each with its animal's name and status beside it: filtered by
 * status (in the address), paged by the id cursor ("More orders"); approve, deliver or cancel,
 * each after a confirmation. Orders are placed through the API (`POST /v1/store/orders`) and by
 * the adoption site's enquiry form (those carry the enquiry: who asked, how to reach them, their message).
 */
export function Orders({ slug, search }: { slug: string; search: string }) {
  const status = statusOf(search)
  const [draft, setDraft] = useState<OrderStatus | ''>(status)
  const [done, setDone] = useState<string | null>(null)
  const { dialog, ask } = useConfirm()
  const list = usePagedList(status, (next) => page('/projects/{slug}/orders', { path: { slug }, query: { limit: PAGE_SIZE, status: status || undefined } }, next))
  const orders = list.items
  useEffect(() => setDraft(status), [search])

  const makeMove = (order: AdoptionOrder, move: Move) =>
    ask(confirmation(order, move), async () => {
      list.setError(null)
      setDone(null)
      try {
        const moved = await api.post(`/projects/{slug}/orders/{orderId}/${move}`, { path: { slug, orderId: order.id } })
        // Same animal, same state: every row of it shows the animal as the move left it.
        list.update((items) => items.map((o) => (o.id === moved.id ? moved : o.petId === moved.petId && o.petStatus !== null ? { ...o, petStatus: moved.petStatus } : o)))
        setDone(`Order ${moved.id} is ${moved.status}; ${moved.petName} is ${moved.petStatus ?? 'removed'}.`)
      } catch (caught) {
        list.setError(messageOf(caught))
      }
    })

  return (
    <>
      <h2 tabIndex={-1}>Adoption orders</h2>
      <p>
        Orders are placed through the API (<code>POST /v1/store/orders</code>) and by the adoption site's enquiry form, which shows who asked: placing one makes its animal pending. Approve it, then deliver it (the animal is sold),
        or cancel it (the animal is available again).
      </p>
      {(status || Boolean(orders?.length)) && (
        <FilterForm label="Filter the orders" onApply={() => navigate(projectPath(slug, 'orders', { status: draft }))}>
          <SelectField
            id="orders-status"
            label="Filter by status"
            value={draft}
            options={[{ value: '', text: 'Any status' }, ...ORDER_STATUSES.map((value) => ({ value, text: value }))]}
            onChange={setDraft}
          />
        </FilterForm>
      )}
      <StatusMessage text={done} />
      <ErrorMessage error={list.error} />
      {orders === null && !list.error && <Loading what="orders" />}
      {orders?.length === 0 && <p>{status ? `No ${status} orders.` : 'This project has no adoption orders yet.'}</p>}
      {orders && orders.length > 0 && (
        <TableWrap label={`Adoption orders of ${slug}`}>
          <table class="orders stacked">
            <caption>
              Adoption orders of {slug}
              {status ? ` (${status})` : ''}, oldest first
            </caption>
            <ColumnHeads names={['Order', 'Animal', 'Animal status', 'Order status', 'Placed', 'Actions']} />
            <tbody>
              {orders.map((order) => (
                <tr key={order.id}>
                  <th scope="row">Order {order.id}</th>
                  <td data-label="Animal">
                    <span>
                      {order.petName} <span class="muted">(id {order.petId})</span>
                      {order.enquiry && <Enquiry enquiry={order.enquiry} />}
                    </span>
                  </td>
                  <td data-label="Animal status">{order.petStatus ? <PetStatusBadge status={order.petStatus} /> : <Badge tone="neutral">removed</Badge>}</td>
                  <td data-label="Order status">
                    <Badge tone={STATUS_TONE[order.status]}>{order.status}</Badge>
                  </td>
                  <td data-label="Placed">
                    <DateTime value={order.createdAt} />
                  </td>
                  <RowActions>
                    {MOVES[order.status].map((move) => (
                      <RowButton key={move} label={MOVE[move].label} what={`${order.id} (${order.petName})`} danger={move === 'cancel'} onClick={() => makeMove(order, move)} />
                    ))}
                    {MOVES[order.status].length === 0 && <span class="muted">Closed</span>}
                  </RowActions>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <MoreButton list={list} pageSize={PAGE_SIZE} label="More orders" none="No more orders." />
      {dialog}
    </>
  )
}
