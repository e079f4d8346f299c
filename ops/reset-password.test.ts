import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import { createTestDatabase, type TestDatabase } from '../backend/src/testing/database.js';
import { REPO_ROOT, runScript } from '../backend/src/testing/script.js';

const SCRIPT = 'ops/reset-password.ts';
const TSX = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
const NEW_PASSWORD = 'fresh Passphrase 2026';

interface Result {
  code: number | null;
  output: string;
}

/** runScript with standard input: a pipe fed `input` (or a terminal, through `script`, when tty is set). */
function runWithInput(args: string[], env: Record<string, string>, input: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(REPO_ROOT, SCRIPT), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit within 60 s:\n${output}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    child.stdin.end(input);
  });
}

/** Runs the script on a pseudo-terminal (util-linux `script`), typing each answer once its prompt shows. */
function runOnTerminal(args: string[], env: Record<string, string>, answers: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const command = [TSX, path.join(REPO_ROOT, SCRIPT), ...args].map((part) => `'${part}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'dumb', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let prompts = 0;
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const seen = (output.match(/password: /g) ?? []).length;
      while (prompts < seen && prompts < answers.length) child.stdin.write(`${answers[prompts++]}\r`);
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit within 60 s:\n${output}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, output });
    });
  });
}

describe('ops/reset-password.ts', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let ada: number;
  let bob: number;

  before(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url, BCRYPT_COST: '4' };
  });
  after(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    await db.knex('users').delete();
    await db.knex('audit_log').delete();
    await db.knex('app_settings').where({ key: 'smtp' }).delete();
    const rows = await db
      .knex('users')
      .insert([
        { email: 'Ada@Example.com', username: 'ada', name: 'Ada', role: 'ADMIN', password_hash: 'old-hash-ada' },
        {
          email: 'bob@example.com',
          username: null,
          name: 'Bob',
          role: 'VIEWER',
          password_hash: 'old-hash-bob',
          totp_secret: 'v1.auth.sealed-totp-of-bob',
          totp_pending_secret: 'v1.auth.pending',
          totp_last_step: 123,
        },
      ])
      .returning<{ id: number }[]>('id');
    [ada, bob] = rows.map((row) => row.id) as [number, number];
    const expires = new Date(Date.now() + 86_400_000);
    await db.knex('sessions').insert([
      { id: 'ada-1', user_id: ada, stage: 'full', expires_at: expires, absolute_expires_at: expires },
      { id: 'ada-2', user_id: ada, stage: 'second_factor', expires_at: expires, absolute_expires_at: expires },
      { id: 'bob-1', user_id: bob, stage: 'full', expires_at: expires, absolute_expires_at: expires },
    ]);
    await db.knex('trusted_devices').insert({ user_id: ada, token_hash: 'ada-device', expires_at: expires });
  });

  async function hashOf(id: number): Promise<string> {
    return (await db.knex('users').where({ id }).first('password_hash')).password_hash;
  }

  it('sets the first line of standard input as a bcrypt hash and ends that account’s sessions', async () => {
    const result = await runWithInput(['ADA'], env, `${NEW_PASSWORD}\nignored second line\n`);
    assert.equal(result.code, 0, result.output);
    assert.equal(bcrypt.compareSync(NEW_PASSWORD, await hashOf(ada)), true);
    assert.match(await hashOf(ada), /^\$2[aby]\$04\$/, 'the cost from BCRYPT_COST');
    assert.deepEqual(await db.knex('sessions').orderBy('id').pluck('id'), ['bob-1']);
    assert.equal((await db.knex('trusted_devices').where({ user_id: ada })).length, 0);
    assert.equal(await hashOf(bob), 'old-hash-bob');
    assert.ok(!result.output.includes(NEW_PASSWORD), 'the password is never printed');
    const audited = await db.knex('audit_log').select('*');
    assert.equal(audited.length, 1);
    assert.equal(audited[0].action, 'password.reset');
    assert.equal(audited[0].actor_type, 'system');
    assert.equal(audited[0].target_id, String(ada));
    assert.deepEqual(audited[0].after, { password: '[sealed]' });
    assert.ok(!JSON.stringify(audited).includes(NEW_PASSWORD));
  });

  it('matches an e-mail address in any case and leaves the authenticator unless asked', async () => {
    const result = await runWithInput(['BOB@EXAMPLE.COM'], env, `${NEW_PASSWORD}\r\n`);
    assert.equal(result.code, 0, result.output);
    assert.equal(bcrypt.compareSync(NEW_PASSWORD, await hashOf(bob)), true, 'a CRLF line ending is not part of it');
    const user = await db.knex('users').where({ id: bob }).first();
    assert.equal(user.totp_secret, 'v1.auth.sealed-totp-of-bob');
  });

  it('--clear-2fa also unenrols the authenticator', async () => {
    const result = await runWithInput(['--clear-2fa', 'bob@example.com'], env, `${NEW_PASSWORD}\n`);
    assert.equal(result.code, 0, result.output);
    const user = await db.knex('users').where({ id: bob }).first();
    assert.deepEqual([user.totp_secret, user.totp_pending_secret, user.totp_last_step], [null, null, null]);
  });

  it('--list shows accounts with role and authenticator status, and no secrets', async () => {
    const result = await runScript(SCRIPT, ['--list'], env);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /Ada@Example\.com\s+ada\s+ADMIN\s+none\s+active/);
    assert.match(result.output, /bob@example\.com\s+-\s+VIEWER\s+enrolled\s+active/);
    for (const secret of ['old-hash', 'sealed-totp', 'v1.auth']) assert.ok(!result.output.includes(secret), secret);
  });

  it('--disable-smtp switches mail off and keeps the rest of the SMTP block', async () => {
    const smtp = {
      enabled: true,
      host: 'smtp.example.com',
      port: 587,
      encryption: 'starttls',
      user: 'u',
      password: 'v1.sek.x',
      fromAddress: 'a@example.com',
      fromName: 'Argus',
    };
    await db.knex('app_settings').insert({ key: 'smtp', value: JSON.stringify(smtp) });
    const result = await runScript(SCRIPT, ['--disable-smtp'], env);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /SMTP is switched off/);
    const row = await db.knex('app_settings').where({ key: 'smtp' }).first();
    assert.deepEqual(row.value, { ...smtp, enabled: false });
    assert.equal(await hashOf(ada), 'old-hash-ada', 'no password was touched');
    assert.deepEqual(await db.knex('audit_log').pluck('action'), ['settings.smtp.disable']);
  });

  it('exits 1 for an unknown account and changes nothing', async () => {
    const result = await runWithInput(['nobody@example.com'], env, `${NEW_PASSWORD}\n`);
    assert.equal(result.code, 1);
    assert.match(result.output, /No account matches "nobody@example\.com"/);
    assert.equal((await db.knex('sessions')).length, 3);
    assert.deepEqual(await db.knex('audit_log').select('*'), [], 'a refused change leaves no audit row');
  });

  it('refuses a password longer than 72 bytes, or one that breaks the rule, and changes nothing', async () => {
    for (const [password, reason] of [
      ['ü'.repeat(37), /at most 72 bytes/],
      ['short', /at least 12 characters/],
      ['ada@example.com', /e-mail address or the username/],
    ] as const) {
      const result = await runWithInput(['ada'], env, `${password}\n`);
      assert.equal(result.code, 1, result.output);
      assert.match(result.output, reason);
    }
    assert.equal(await hashOf(ada), 'old-hash-ada');
    assert.equal((await db.knex('sessions').where({ user_id: ada })).length, 2);
  });

  it('never takes the password as an argument, and needs DATABASE_URL', async () => {
    const asOption = await runScript(SCRIPT, ['--password=hunter2hunter2', 'ada'], env);
    assert.equal(asOption.code, 1);
    assert.match(asOption.output, /Unknown option --password/);
    assert.ok(!asOption.output.includes('hunter2'));
    const noUrl = await runScript(SCRIPT, ['--list'], {});
    assert.equal(noUrl.code, 1);
    assert.match(noUrl.output, /DATABASE_URL is not set/);
  });

  it('asks twice on a terminal without echo, and refuses two different answers', async () => {
    const mismatch = await runOnTerminal(['ada'], env, [NEW_PASSWORD, 'something else entirely']);
    assert.equal(mismatch.code, 1, mismatch.output);
    assert.match(mismatch.output, /do not match/);
    assert.equal(await hashOf(ada), 'old-hash-ada');

    const typed = await runOnTerminal(['ada'], env, [NEW_PASSWORD, NEW_PASSWORD]);
    assert.equal(typed.code, 0, typed.output);
    assert.match(typed.output, /New password: [\s\S]*Repeat the new password: /);
    assert.ok(!typed.output.includes(NEW_PASSWORD), 'not echoed');
    assert.equal(bcrypt.compareSync(NEW_PASSWORD, await hashOf(ada)), true);
  });
});
