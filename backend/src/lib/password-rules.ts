/**
 * The password rule (docs/limits.md "Request sizes"): at least 12 characters, at most
 * 72 bytes of UTF-8, not the account's e-mail address or username. The 72-byte
 * cap is bcrypt's input limit: a longer password is refused, never truncated
 * silently (bcrypt would ignore everything after byte 72).
 */
export const MIN_PASSWORD_CHARACTERS = 12;
export const MAX_PASSWORD_BYTES = 72;

/** The message to show for a password that breaks the rule, or null when it is acceptable. */
export function validatePassword(
  password: string,
  account: { email: string; username?: string | null },
): string | null {
  // code points, not UTF-16 units: an emoji counts as one character, as a person would count it
  if ([...password].length < MIN_PASSWORD_CHARACTERS) {
    return `The password must be at least ${MIN_PASSWORD_CHARACTERS} characters long`;
  }
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    // bytes, not characters: an accented or non-Latin character takes 2 to 4 of them
    return `The password must be at most ${MAX_PASSWORD_BYTES} bytes long (use fewer or plainer characters)`;
  }
  const lowered = password.toLowerCase();
  if (lowered === account.email.toLowerCase() || (account.username && lowered === account.username.toLowerCase())) {
    return 'The password must not be the e-mail address or the username';
  }
  return null;
}
