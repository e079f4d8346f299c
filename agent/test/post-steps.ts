/**
 * The agent's post() as its own process, for agent/test/kept-connection.test.ts: the server's
 * certificate is trusted the way an installed agent trusts a private CA (NODE_EXTRA_CA_CERTS, read
 * only at start), and the steps can stop this process's event loop, which the test's server must
 * not share. `tsx post-steps.ts <url> <step>...`, a step being `post`, `wait:<ms>` (the loop runs:
 * a close by the server is seen) or `block:<ms>` (the loop stands still: a close by the server is
 * not seen before the next post writes on the connection). One JSON line per post.
 */
import { post } from '../src/send.js';

const [url, ...steps] = process.argv.slice(2) as [string, ...string[]];
for (const step of steps) {
  const [what, ms] = step.split(':');
  if (what === 'wait') await new Promise((resolve) => setTimeout(resolve, Number(ms)));
  else if (what === 'block') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms));
  else {
    const line = await post(url, { 'content-type': 'application/json' }, Buffer.from('{}')).then(
      (answer) => ({ status: answer.status }),
      (error: NodeJS.ErrnoException) => ({ error: error.code ?? error.message }),
    );
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}
