/**
 * The page to open after signing in. Only a path of this console is accepted: an absolute or
 * protocol-relative URL ("//evil.example") in a crafted link must not send the user elsewhere.
 */
export function safeReturnUrl(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (value === '/login' || value.startsWith('/login?') || value.startsWith('/setup')) return '/';
  return value;
}
