import { useEffect, useRef, useState } from 'preact/hooks'
import { Account } from './Account'
import { Audit } from './Audit'
import { api, ApiError, messageOf, onUnauthorized, type Session, setCsrfToken } from './api'
import { ErrorMessage, Loading } from './components'
import { ProjectPage } from './ProjectPage'
import { Projects } from './Projects'
import { Link, navigate, parseRoute, projectRoutePath, type Route, TABS, useLocation } from './router'
import { SignIn } from './SignIn'
import { Users } from './Users'

/** The main navigation, in order; `operators`: shown to operators only. */
const MAIN_PAGES: readonly { to: string; route: Route['name']; label: string; operators?: boolean }[] = [
  { to: '/', route: 'projects', label: 'Projects' },
  { to: '/audit', route: 'audit', label: 'Audit log' },
  { to: '/users', route: 'users', label: 'Users', operators: true },
  { to: '/account', route: 'account', label: 'Account' },
]

function titleOf(route: Route): string {
  switch (route.name) {
    case 'signIn':
      return 'Sign in'
    case 'projects':
      return 'Projects'
    case 'audit':
      return 'Audit log'
    case 'users':
      return 'Users'
    case 'account':
      return 'Account'
    case 'project': {
      const tab = TABS.find((t) => t.tab === route.tab)?.label ?? ''
      if (route.animal === 'new') return `New animal · ${tab} · ${route.slug}`
      return route.animal === undefined ? `${tab} · ${route.slug}` : `Animal ${route.animal} · ${tab} · ${route.slug}`
    }
    case 'notFound':
      return 'Page not found'
  }
}

export function App() {
  const location = useLocation()
  const route = parseRoute(location)
  // undefined while the session is being looked up; null when signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined)
  const [notice, setNotice] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  const signInPath = (next: string) => (next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`)
  const appPath = () => {
    const { path, search } = location
    return `${path}${search}`
  }

  useEffect(() => {
    onUnauthorized(() => {
      setCsrfToken(null)
      setSession(null)
      setNotice('Your session has ended: sign in again.')
    })
    api.get('/session', { redirectOn401: false }).then(
      (current) => {
        setCsrfToken(current.csrfToken)
        setSession(current)
      },
      (caught: unknown) => {
        if (!(caught instanceof ApiError && caught.status === 401)) setError(messageOf(caught))
        setSession(null)
      },
    )
  }, [])

  // Signed out: every page but sign-in goes there (and comes back after); signed in: the reverse.
  useEffect(() => {
    if (session === undefined) return
    if (session === null && route.name !== 'signIn') navigate(signInPath(appPath()), { replace: true })
    else if (session && route.name === 'signIn') navigate(route.next ?? '/', { replace: true })
    else if (route.name === 'project' && location.path !== projectRoutePath(route)) navigate(projectRoutePath(route), { replace: true })
  }, [session, location.path, location.search])

  // A new page: its title, and focus on its heading so screen readers start there (not on first load).
  const first = useRef(true)
  useEffect(() => {
    document.title = `${titleOf(route)} · Adoption Store`
    if (first.current) {
      first.current = false
      return
    }
    const frame = window.requestAnimationFrame(() => {
      const main = document.getElementById('main')
      const heading = main?.querySelector<HTMLElement>('.tab-panel h2') ?? main?.querySelector<HTMLElement>('h1')
      heading?.focus()
    })
    return () => window.cancelAnimationFrame(frame)
  }, [location.path])

  const signOut = async () => {
    setError(null)
    try {
      await api.delete('/session', { redirectOn401: false })
    } catch (caught) {
      // Already signed out (401) is what was asked; anything else is said.
      if (!(caught instanceof ApiError && caught.status === 401)) {
        setError(messageOf(caught))
        return
      }
    }
    setCsrfToken(null)
    setSession(null)
    setNotice('You are signed out.')
    navigate('/sign-in')
  }

  const signedIn = (current: Session) => {
    setCsrfToken(current.csrfToken)
    setNotice(null)
    setError(null)
    setSession(current)
  }

  let page
  if (session === undefined) page = <Loading what="your session" />
  else if (route.name === 'signIn') page = session ? null : <SignIn onSignedIn={signedIn} notice={notice} />
  else if (!session) page = null
  else if (route.name === 'projects') page = <Projects session={session} />
  else if (route.name === 'audit') page = <Audit session={session} search={route.search} />
  else if (route.name === 'users') page = <Users session={session} />
  else if (route.name === 'account') page = <Account session={session} />
  else if (route.name === 'project') page = <ProjectPage key={route.slug} slug={route.slug} tab={route.tab} search={route.search} animal={route.animal} features={session.features} readOnly={session.user.role === 'viewer'} operator={session.user.role === 'operator'} />
  else
    page = (
      <>
        <h1 tabIndex={-1}>Page not found</h1>
        <p>
          There is no dashboard page at <code>{route.path}</code>. <Link to="/">See the projects</Link>.
        </p>
      </>
    )

  return (
    <>
      <a
        class="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault()
          document.getElementById('main')?.focus()
        }}
      >
        Skip to main content
      </a>
      <header class="site-header">
        <div class="header-inner">
          <Link to="/" class="brand">
            Adoption Store <span class="brand-sub">dashboard</span>
          </Link>
          {session && (
            <>
              <nav aria-label="Main">
                <ul class="main-nav">
                  {MAIN_PAGES.filter((page) => !page.operators || session.user.role === 'operator').map((page) => (
                    <li key={page.to}>
                      <Link to={page.to} aria-current={route.name === page.route ? 'page' : undefined}>
                        {page.label}
                      </Link>
                    </li>
                  ))}
                </ul>
              </nav>
              <div class="account">
                <span class="who">
                  {session.user.email} <span class="role">({session.user.role})</span>
                </span>
                <button type="button" onClick={() => void signOut()}>
                  Sign out
                </button>
              </div>
            </>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorMessage error={error} />
        {page}
      </main>
    </>
  )
}
