/** The peers' OAuth client and their users' password, shared by their servers and the bench (no dependencies). */
export const benchClient = {
  client_id: 'bench',
  client_secret: 'bench-client-secret-0123456789abcdef',
  redirect_uri: 'http://127.0.0.1:5173/auth/callback',
};
export const benchPassword = 'bench-password';
