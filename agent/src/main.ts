/** The executable's entry: argus-agent <command>. */
import { main } from './cli.js';

// no top-level await: the single executable runs this file as CommonJS
void main(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then((code) => {
  process.exitCode = code;
});
