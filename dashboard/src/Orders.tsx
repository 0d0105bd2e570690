import { useEffect, useState } from 'preact/hooks'
import { type AdoptionOrder, api, messageOf, ORDER_STATUSES, type OrderStatus, page, path } from './api'
import { PetStatusBadge } from './Animals'
import { Badge, type BadgeTone, ColumnHeads, type ConfirmOptions, DateTime, ErrorMessage, Hidden, Loading, SelectField, StatusMessage, TableWrap, useConfirm } from './components'
import { navigate, projectPath, queryString } from './router'

const PAGE_SIZE = 25

const STATUS_TONE: Record<OrderStatus, BadgeTone> = { placed: 'wait', approved: 'wait', delivered: 'good', cancelled: 'neutral' }

type Move = 'approve' | 'deliver' | 'cancel'

/** The moves an order in each status allows, in the order their buttons are shown. */
const MOVES: Record<OrderStatus, Move[]> = { placed: ['approve', 'cancel'], approved: ['deliver', 'cancel'], delivered: [], cancelled: [] }

const MOVE_LABEL: Record<Move, string> = { approve: 'Approve', deliver: 'Deliver', cancel: 'Cancel order' }

/** What each move does, said before it is made. */
function confirmation(order: AdoptionOrder, move: Move): ConfirmOptions {
  const animal = order.petName
  switch (move) {
    case 'approve':
      return {
        title: `Approve order ${order.id}?`,
        body: <p>The adoption of {animal} is approved. {animal} stays pending until the order is delivered.</p>,
        confirmLabel: 'Approve order',
      }
    case 'deliver':
      return {
        title: `Deliver order ${order.id}?`,
        body: (
          <p>
            {animal} goes to their new home: the animal is marked <strong>sold</strong> and the order is complete. This cannot be undone.
          </p>
        ),
        confirmLabel: 'Deliver order',
      }
    case 'cancel':
      return {
        title: `Cancel order ${order.id}?`,
        body: (
          <p>
            The order is cancelled and {animal} is <strong>available</strong> again, for anyone to order. This cannot be undone.
          </p>
        ),
        confirmLabel: 'Cancel order',
        cancelLabel: 'Keep the order',
        danger: true,
      }
  }
}

function statusOf(search: string): OrderStatus | '' {
  const status = new URLSearchParams(search).get('status') ?? ''
  return ORDER_STATUSES.includes(status as OrderStatus) ? (status as OrderStatus) : ''
}

/**
 * A project's adoption orders, each with its animal's name and status beside it: filtered by
 * status (in the address), paged by the id cursor ("More orders"); approve, deliver or cancel,
 * each after a confirmation. Orders are placed through the API (`POST /v1/store/orders`).
 */
export function Orders({ slug, search }: { slug: string; search: string }) {
  const status = statusOf(search)
  const [draft, setDraft] = useState<OrderStatus | ''>(status)
  const [orders, setOrders] = useState<AdoptionOrder[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [loadingMore, setLoadingMore] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [done, setDone] = useState<string | null>(null)
  const { dialog, ask } = useConfirm()

  useEffect(() => {
    setDraft(status)
    setOrders(null)
    setNext(null)
    setError(null)
    page<AdoptionOrder>(path`/projects/${slug}/orders` + queryString({ limit: String(PAGE_SIZE), status })).then(
      (first) => {
        setOrders(first.items)
        setNext(first.next)
      },
      (caught: unknown) => setError(messageOf(caught)),
    )
  }, [slug, search])

  const more = async () => {
    if (!next) return
    setLoadingMore(true)
    setError(null)
    try {
      const following = await page<AdoptionOrder>(next)
      setOrders((list) => [...(list ?? []), ...following.items])
      setNext(following.next)
    } catch (caught) {
      setError(messageOf(caught))
    } finally {
      setLoadingMore(false)
    }
  }

  const makeMove = (order: AdoptionOrder, move: Move) =>
    ask(confirmation(order, move), async () => {
      setError(null)
      setDone(null)
      try {
        const moved = await api<AdoptionOrder>('POST', path`/projects/${slug}/orders/${order.id}/${move}`)
        // Same animal, same state: every row of it shows the animal as the move left it.
        setOrders((list) => (list ?? []).map((o) => (o.id === moved.id ? moved : o.petId === moved.petId && o.petStatus !== null ? { ...o, petStatus: moved.petStatus } : o)))
        setDone(`Order ${moved.id} is ${moved.status}; ${moved.petName} is ${moved.petStatus ?? 'removed'}.`)
      } catch (caught) {
        setError(messageOf(caught))
      }
    })

  return (
    <>
      <h2 tabIndex={-1}>Adoption orders</h2>
      <p>
        Orders are placed through the API (<code>POST /v1/store/orders</code>): placing one makes its animal pending. Approve it, then deliver it (the animal is sold),
        or cancel it (the animal is available again).
      </p>
      {(status || Boolean(orders?.length)) && (
        <form
          class="form inline-form filters"
          aria-label="Filter the orders"
          onSubmit={(event) => {
            event.preventDefault()
            navigate(projectPath(slug, 'orders', { status: draft }))
          }}
        >
          <SelectField
            id="orders-status"
            label="Filter by status"
            value={draft}
            options={[{ value: '', text: 'Any status' }, ...ORDER_STATUSES.map((value) => ({ value, text: value }))]}
            onChange={setDraft}
          />
          <button type="submit" class="button-primary">
            Show
          </button>
        </form>
      )}
      <StatusMessage text={done} />
      <ErrorMessage error={error} />
      {orders === null && !error && <Loading what="orders" />}
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
                    </span>
                  </td>
                  <td data-label="Animal status">{order.petStatus ? <PetStatusBadge status={order.petStatus} /> : <Badge tone="neutral">removed</Badge>}</td>
                  <td data-label="Order status">
                    <Badge tone={STATUS_TONE[order.status]}>{order.status}</Badge>
                  </td>
                  <td data-label="Placed">
                    <DateTime value={order.createdAt} />
                  </td>
                  <td class="row-actions">
                    {MOVES[order.status].length > 0 ? (
                      <div class="actions">
                        {MOVES[order.status].map((move) => (
                          <button key={move} type="button" class={`button-small${move === 'cancel' ? ' button-danger' : ''}`} onClick={() => makeMove(order, move)}>
                            {MOVE_LABEL[move]}
                            <Hidden> {order.id} ({order.petName})</Hidden>
                          </button>
                        ))}
                      </div>
                    ) : (
                      <span class="muted">Closed</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {orders && orders.length > 0 && next && (
        <button type="button" onClick={() => void more()} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'More orders'}
        </button>
      )}
      {orders && orders.length > PAGE_SIZE && !next && <p class="muted">No more orders.</p>}
      {dialog}
    </>
  )
}
