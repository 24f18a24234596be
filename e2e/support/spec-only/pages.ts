/** The sign-in service's HTML pages: plain forms, no scripts. */

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n    ');

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
  <main>
  ${body}
  </main>
</body>
</html>
`;

export function signInPage(returnTo: string, error?: string): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
  ${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
  <form method="post" action="/auth/login">
    ${hidden({ return_to: returnTo })}
    <p><label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="username" required></p>
    <p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>
    <p><button type="submit">Sign in</button></p>
  </form>`,
  );
}

export function consentPage(email: string, fields: Record<string, string>): string {
  const scope = fields.scope === 'full' ? 'read and change your files' : 'read your files';
  return page(
    'Allow access?',
    `<h1>Allow ${escapeHtml(fields.client_id ?? '')} to ${scope}?</h1>
  <p>Signed in as ${escapeHtml(email)}.</p>
  <form method="post" action="/auth/login/oauth/authorize">
    ${hidden(fields)}
    <button type="submit" name="decision" value="allow">Allow</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </form>`,
  );
}

export function errorPage(message: string): string {
  return page('Bad request', `<h1>Bad request</h1>\n  <p>${escapeHtml(message)}</p>`);
}
