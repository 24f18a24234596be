/**
 * Server-rendered pages of the sign-in service. No scripts: the pages work with JavaScript off,
 * with curl, and under a CSP that allows nothing but our own stylesheet.
 */

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => escapes[c] ?? c);

export const stylesheetPath = '/auth/assets/sign-in.css';

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} · Investment Platform</title>
<link rel="stylesheet" href="${stylesheetPath}">
</head>
<body>
<main class="card">
<p class="brand">Investment Platform</p>
${body}
</main>
</body>
</html>`;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

export interface LoginPage {
  action: string;
  returnTo: string;
  csrfToken: string;
  email?: string;
  error?: string;
  clientName?: string;
  /** Sign-in is held this many seconds: the error ticks down to zero (see `waitStylesheet`). */
  waitSeconds?: number;
}

/** The path of the stylesheet that makes a hold of `seconds` tick down on the sign-in page. */
export const waitStylesheetPath = (seconds: number) => `/auth/assets/wait-${seconds}.css`;
export const waitStylesheetPattern = /^\/auth\/assets\/wait-([1-9][0-9]{0,4})\.css$/;

/**
 * A countdown without a script (the pages allow none): an integer custom property animated from
 * `seconds` to 0 over `seconds`, shown as m:ss through CSS counters. The wait in words stays in
 * the alert for screen readers and for browsers without `@property`; only its look is replaced.
 */
export function waitStylesheet(seconds: number): string {
  return `@property --wait { syntax: '<integer>'; inherits: false; initial-value: 0; }
@keyframes sign-in-wait { from { --wait: ${seconds}; } to { --wait: 0; } }
.countdown { animation: sign-in-wait ${seconds}s linear forwards;
  counter-reset: minutes round(down, var(--wait) / 60, 1) seconds mod(var(--wait), 60); }
.countdown .in-words { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.countdown::after { content: counter(minutes) ":" counter(seconds, decimal-leading-zero); font-variant-numeric: tabular-nums; }
`;
}

/** The error, with its wait (written `{wait}` in it) marked up to tick down when there is one. */
function errorText(error: string, waitSeconds: number | undefined): string {
  if (waitSeconds === undefined || !error.includes('{wait}')) return escapeHtml(error.replace('{wait}', ''));
  const [before, after] = error.split('{wait}', 2).map(escapeHtml);
  return (
    `${before}<span class="countdown"><span class="in-words">${escapeHtml(waitText(waitSeconds))}</span></span>${after}` +
    `<link rel="stylesheet" href="${waitStylesheetPath(waitSeconds)}">`
  );
}

/** "40 seconds", "1 minute", "15 minutes". */
export function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export function renderLoginPage(page: LoginPage): string {
  const intro = page.clientName
    ? `<p>Sign in to continue to <strong>${escapeHtml(page.clientName)}</strong>.</p>`
    : '<p>Sign in to your account.</p>';
  const error = page.error
    ? `<p class="error" role="alert" id="sign-in-error">${errorText(page.error, page.waitSeconds)}</p>`
    : '';
  const describedBy = page.error ? ' aria-describedby="sign-in-error"' : '';
  // After a failed attempt the email is kept, so the next thing to type is the password.
  const retry = Boolean(page.error && page.email);
  const focus = (field: 'email' | 'password') => ((field === 'password') === retry ? ' autofocus' : '');
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
${intro}
${error}
<form method="post" action="${escapeHtml(page.action)}">
${hidden('csrf_token', page.csrfToken)}
${hidden('return_to', page.returnTo)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required${focus('email')} value="${escapeHtml(page.email ?? '')}"${describedBy}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${focus('password')}${describedBy}>
<button type="submit">Sign in</button>
</form>`,
  );
}

const scopeText: Record<string, string> = {
  basic: 'See your profile and the files you have not marked private. It cannot change anything.',
  full: 'See and manage everything your account may: your profile, your entities and all their files.',
};

export interface ConsentPage {
  action: string;
  clientName: string;
  scope: string;
  userEmail: string;
  csrfToken: string;
  params: Record<string, string>;
}

export function renderConsentPage(page: ConsentPage): string {
  const fields = Object.entries(page.params)
    .map(([name, value]) => hidden(name, value))
    .join('\n');
  return layout(
    'Allow access',
    `<h1>Allow ${escapeHtml(page.clientName)}?</h1>
<p>Signed in as <strong>${escapeHtml(page.userEmail)}</strong>.</p>
<p><strong>${escapeHtml(page.clientName)}</strong> asks for <strong>${escapeHtml(page.scope)}</strong> access:</p>
<p class="scope">${escapeHtml(scopeText[page.scope] ?? page.scope)}</p>
<form method="post" action="${escapeHtml(page.action)}">
${hidden('csrf_token', page.csrfToken)}
${fields}
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}

export function renderErrorPage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}

export function renderMessagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

export const stylesheet = `
:root { color-scheme: light dark; --bg: #f4f5f7; --card: #fff; --text: #1c2230; --muted: #4a5368;
  --accent: #1f5fbf; --accent-text: #fff; --error: #a8201a; --border: #c9ced8; font-family: system-ui, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #11151c; --card: #1b212c; --text: #e8ebf1; --muted: #aab3c5;
  --accent: #7eb0ff; --accent-text: #0b1220; --error: #ff9b93; --border: #3a4456; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--text); }
.card { width: min(26rem, 100% - 2rem); background: var(--card); border: 1px solid var(--border); border-radius: 12px;
  padding: 1.5rem; margin: 1rem; }
.brand { margin: 0 0 .5rem; color: var(--muted); font-size: .9rem; font-weight: 600; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .3rem; }
input[type=email], input[type=password] { width: 100%; padding: .6rem; font: inherit; color: inherit;
  background: transparent; border: 1px solid var(--border); border-radius: 6px; }
button { margin-top: 1.25rem; padding: .6rem 1.2rem; font: inherit; font-weight: 600; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); }
button.secondary { background: transparent; color: var(--text); border-color: var(--border); }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.error { color: var(--error); font-weight: 600; }
.scope { padding: .75rem; border-left: 4px solid var(--accent); background: color-mix(in srgb, var(--accent) 10%, transparent); }
`;
