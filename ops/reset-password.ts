/**
 * `npm run reset-password -- [options] [account]` (docs/operations.md "Operational scripts"):
 * sets an account's password from the server's shell. Needs only DATABASE_URL.
 *
 *   --list           accounts with role and authenticator status (no secrets)
 *   <account>        an e-mail address (contains '@') or a username, any case;
 *                    the password is asked twice on a terminal (not echoed), or
 *                    read from the first line of standard input without one.
 *                    Never an argument: it would land in the shell history.
 *   --clear-2fa      also unenrols the account's authenticator
 *   --disable-smtp   switches mail off (recovery when the secrets key is lost)
 *
 * Writes the same bcrypt hash as the app and ends the account's sessions and
 * trusted devices. Exit 1 with one clear line on any refusal.
 */
import { createAuditRepo } from '../backend/src/audit/repo.js';
import { createAuditService } from '../backend/src/audit/service.js';
import { SYSTEM_ACTOR } from '../backend/src/lib/audit-trail.js';
import { systemClock } from '../backend/src/lib/clock.js';
import type { ReadStream } from 'node:tty';
import { ConfigError, loadDatabaseUrl } from '../backend/src/config.js';
import { isMain } from '../db/is-main.js';
import { createPasswordHasher } from '../backend/src/lib/password-hasher.js';
import { validatePassword } from '../backend/src/lib/password-rules.js';
import {
  findAccountByIdentifier,
  listAccounts,
  setPasswordAndEndSessions,
  type AccountRow,
} from '../backend/src/password-reset/repo.js';
import { disableSmtp } from '../backend/src/settings/smtp/repo.js';
import { createKnex } from '../db/connection.js';

const USAGE = `Usage: npm run reset-password -- [--clear-2fa] [--disable-smtp] <e-mail or username>
       npm run reset-password -- --list
       npm run reset-password -- --disable-smtp
The new password is asked on the terminal (or read from the first line of standard input), never given as an argument.`;

export interface ScriptIo {
  stdin: NodeJS.ReadableStream & Partial<Pick<ReadStream, 'isTTY' | 'setRawMode'>>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

class Refusal extends Error {}

interface Options {
  list: boolean;
  clear2fa: boolean;
  disableSmtp: boolean;
  account: string | null;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { list: false, clear2fa: false, disableSmtp: false, account: null };
  for (const arg of argv) {
    if (arg === '--list') options.list = true;
    else if (arg === '--clear-2fa') options.clear2fa = true;
    else if (arg === '--disable-smtp') options.disableSmtp = true;
    else if (arg.startsWith('-')) throw new Refusal(`Unknown option ${arg.split('=')[0]}\n${USAGE}`);
    else if (options.account !== null) throw new Refusal(`Give one account only\n${USAGE}`);
    else options.account = arg;
  }
  if (options.list && (options.account || options.clear2fa || options.disableSmtp)) {
    throw new Refusal('--list takes no other option or account');
  }
  if (options.clear2fa && !options.account) throw new Refusal(`--clear-2fa needs an account\n${USAGE}`);
  if (!options.list && !options.account && !options.disableSmtp) throw new Refusal(USAGE);
  return options;
}

function bcryptCost(env: NodeJS.ProcessEnv): number {
  const raw = env['BCRYPT_COST']?.trim();
  if (!raw) return 11; // the app's cost; BCRYPT_COST lowers it for tests only
  const cost = Number(raw);
  if (!/^\d+$/.test(raw) || cost < 4 || cost > 31) throw new Refusal('BCRYPT_COST must be a whole number from 4 to 31');
  return cost;
}

/** One line typed on the terminal without echo (raw mode, so the password never shows). */
function promptHidden(question: string, io: ScriptIo): Promise<string> {
  const { stdin } = io;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (result: string | null) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write('\n');
      if (result === null) reject(new Refusal('Cancelled; nothing changed'));
      else resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish(value);
        if (char === '\u0003') return finish(null); // Ctrl-C
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else if (char === '\u0015')
          value = ''; // Ctrl-U
        else if (char >= ' ') value += char;
      }
    };
    // raw mode before the prompt shows, so not even a quick typist sees an echo
    stdin.setRawMode?.(true);
    stdin.setEncoding('utf8'); // whole characters per chunk, even for multi-byte ones
    stdin.on('data', onData);
    stdin.resume();
    io.stderr.write(question);
  });
}

/** The first line of a non-terminal standard input (a pipe or a file); the rest is ignored. */
function readFirstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const done = (error: Error | null) => {
      stdin.removeListener('data', onData).removeListener('end', onEnd).removeListener('error', done);
      stdin.pause();
      if ('destroy' in stdin && typeof stdin.destroy === 'function') stdin.destroy();
      if (error) reject(error);
      else resolve(buffered.split('\n')[0]?.replace(/\r$/, '') ?? '');
    };
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) done(null);
    };
    const onEnd = () => done(null);
    stdin.setEncoding('utf8');
    stdin.on('data', onData).on('end', onEnd).on('error', done);
  });
}

async function readNewPassword(io: ScriptIo): Promise<string> {
  if (!io.stdin.isTTY) {
    const line = await readFirstLine(io.stdin);
    if (line === '') throw new Refusal('No password on standard input (its first line is read); nothing changed');
    return line;
  }
  const first = await promptHidden('New password: ', io);
  const second = await promptHidden('Repeat the new password: ', io);
  if (first !== second) throw new Refusal('The two passwords do not match; nothing changed');
  return first;
}

function formatAccounts(accounts: AccountRow[]): string {
  if (accounts.length === 0) return 'No accounts yet (the first one is created at /setup).\n';
  const rows = accounts.map((account) => [
    String(account.id),
    account.email,
    account.username ?? '-',
    account.role,
    account.totpEnrolled ? 'enrolled' : 'none',
    account.disabled ? 'disabled' : 'active',
  ]);
  const table = [['ID', 'E-MAIL', 'USERNAME', 'ROLE', 'AUTHENTICATOR', 'STATUS'], ...rows];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return (
    table
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

export async function resetPasswordMain(argv: string[], env: NodeJS.ProcessEnv, io: ScriptIo): Promise<number> {
  let knex: ReturnType<typeof createKnex> | null = null;
  try {
    const options = parseArgs(argv);
    knex = createKnex({ url: loadDatabaseUrl(env), poolMax: 1, applicationName: 'argus-reset-password' });
    const db = knex;

    if (options.list) {
      io.stdout.write(formatAccounts(await listAccounts(db)));
      return 0;
    }

    let target: { account: AccountRow; passwordHash: string } | null = null;
    if (options.account) {
      const account = await findAccountByIdentifier(db, options.account);
      if (!account) throw new Refusal(`No account matches "${options.account}" (see --list)`);
      const password = await readNewPassword(io);
      const problem = validatePassword(password, account);
      if (problem) throw new Refusal(`${problem}; nothing changed`);
      const hasher = createPasswordHasher(bcryptCost(env), 1);
      try {
        target = { account, passwordHash: await hasher.hash(password) };
      } finally {
        await hasher.close();
      }
    }

    // every check passed: now change everything asked for at once, or nothing
    // each change writes its audit row (actor `system`) in the same transaction
    const audit = createAuditService({ repo: createAuditRepo(db), clock: systemClock });
    const smtpChanged = await db.transaction(async (trx) => {
      const changed = options.disableSmtp ? await disableSmtp(trx) : false;
      if (changed) {
        await audit.record(trx, SYSTEM_ACTOR, {
          action: 'settings.smtp.disable',
          targetType: 'settings',
          targetId: 'smtp',
          after: { enabled: false },
        });
      }
      if (target) {
        await setPasswordAndEndSessions(trx, target.account.id, target.passwordHash, new Date(), {
          clearSecondFactor: options.clear2fa,
        });
        await audit.record(trx, SYSTEM_ACTOR, {
          action: 'password.reset',
          targetType: 'user',
          targetId: target.account.id,
          after: { password: 'changed', ...(options.clear2fa ? { secondFactor: 'removed' } : {}) },
        });
      }
      return changed;
    });

    if (options.disableSmtp) {
      io.stdout.write(
        smtpChanged
          ? 'SMTP is switched off: no mail is sent and sign-in asks for no e-mailed code.\n' +
              'Re-enter the SMTP password in Settings to switch it on again.\n'
          : 'No SMTP settings are stored: mail was already off.\n',
      );
    }
    if (target) {
      const { account } = target;
      io.stdout.write(
        `Password set for ${account.email} (${account.role}); its sessions and trusted devices are ended.\n`,
      );
      if (options.clear2fa)
        io.stdout.write('The authenticator is removed; the user can enrol a new one after signing in.\n');
      if (account.disabled)
        io.stdout.write('Note: this account is disabled; an administrator must enable it before it can sign in.\n');
    }
    return 0;
  } catch (error) {
    if (error instanceof Refusal || error instanceof ConfigError) {
      io.stderr.write(`${error.message}\n`);
      return 1;
    }
    io.stderr.write(`reset-password failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await knex?.destroy();
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await resetPasswordMain(process.argv.slice(2), process.env, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}
