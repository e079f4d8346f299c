/**
 * A Debian host for the agent installer's systemd layout, in a container of the real Docker engine:
 * the offline Debian image with iputils-ping (as Debian installs it: `cap_net_raw` on the file), the
 * engine's own socket at /var/run/docker.sock with its group as the docker.io package makes it
 * (`docker`, the socket's gid), systemctl stubbed (no init in a container). The agent is then started
 * as the unit the installer wrote says: its `User=` and `SupplementaryGroups=`, the state directory
 * its `StateDirectory=` makes, `ExecStart=`'s command.
 */
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { DOCKER_HOST, docker } from './deployment.js';

const ENGINE_SOCKET = DOCKER_HOST.replace(/^unix:\/\//, '');

/** The Debian image plus iputils-ping, built once per base image (its id names it). */
export async function hostImage(base: string): Promise<string> {
  const id = (await docker(['image', 'inspect', '-f', '{{.Id}}', base])).stdout.trim().replace(/^sha256:/, '');
  const image = `argus-test/agent-host:${id.slice(0, 12)}`;
  if ((await docker(['image', 'inspect', image])).code === 0) return image;
  const built = await docker(['build', '--network', 'host', '-t', image, '-'], {
    input: `FROM ${base}\nUSER root\nRUN apt-get update && apt-get install -y iputils-ping && rm -rf /var/lib/apt/lists/*\n`,
    timeoutMs: 300_000,
  });
  assert.equal(built.code, 0, built.stdout + built.stderr);
  return image;
}

export interface AgentHost {
  container: string;
  hostname: string;
  /** A shell command as root in the host; throws unless it succeeds; its output trimmed. */
  sh(command: string): Promise<string>;
  /** What the agent printed since it started. */
  log(): Promise<string>;
}

/** A running host container on the host's network (the test server is on loopback), the engine's socket mounted. */
export async function startAgentHost(image: string, container: string): Promise<AgentHost> {
  const gid = (await stat(ENGINE_SOCKET)).gid;
  assert.notEqual(gid, 0, `${ENGINE_SOCKET} belongs to a group of its own (docker.io's "docker")`);
  const hostname = container.slice(-40);
  const started = await docker([
    ...['run', '-d', '--name', container, '--hostname', hostname, '--network', 'host', '--user', '0'],
    ...['-v', `${ENGINE_SOCKET}:/var/run/docker.sock`, '--entrypoint', 'sleep', image, 'infinity'],
  ]);
  assert.equal(started.code, 0, started.stderr);
  const sh = async (command: string) => {
    const result = await docker(['exec', container, 'sh', '-c', command], { timeoutMs: 300_000 });
    assert.equal(result.code, 0, `${command}\n${result.stdout}${result.stderr}`);
    return result.stdout.trim();
  };
  await sh(
    [
      'printf \'#!/bin/sh\\n[ "$1" != is-active ]\\n\' >/usr/local/sbin/systemctl && chmod 755 /usr/local/sbin/systemctl',
      `groupadd --system --gid ${gid} docker`,
    ].join(' && '),
  );
  return { container, hostname, sh, log: () => sh('cat /var/log/argus-agent.log') };
}

/** `Key=value` of the installed unit, '' when absent. */
export async function unitLine(host: AgentHost, key: string): Promise<string> {
  const unit = await host.sh('cat /etc/systemd/system/argus-agent.service');
  return new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1] ?? '';
}

/**
 * Starts `ExecStart=` as systemd would from the unit: as `User=` with its group and exactly the
 * `SupplementaryGroups=`, in the state directory `StateDirectory=` makes (the agent's, 0700),
 * with no capability (root's are dropped with the uid). Returns the agent's Name, Uid and Groups lines
 * of /proc/<pid>/status: who it runs as, as the kernel has it.
 */
export async function startAgentAsTheUnitSays(host: AgentHost): Promise<string> {
  const user = await unitLine(host, 'User');
  assert.equal(user, 'argus-agent');
  const groups = (await unitLine(host, 'SupplementaryGroups')).split(' ').filter(Boolean);
  const command = await unitLine(host, 'ExecStart');
  assert.match(command, /^\/usr\/local\/bin\/argus-agent run --config \/etc\/argus-agent\/config\.yaml$/);
  await host.sh(`install -d -m 0700 -o ${user} -g ${user} /var/lib/argus-agent /var/lib/argus-agent/textfile`);
  const groupOption = groups.length ? `--groups=${groups.join(',')}` : '--clear-groups';
  const started = await docker([
    ...['exec', '-d', host.container, 'sh', '-c'],
    `echo $$ >/run/argus-agent.pid; exec setpriv --reuid=${user} --regid=${user} ${groupOption} ${command} >/var/log/argus-agent.log 2>&1`,
  ]);
  assert.equal(started.code, 0, started.stderr);
  // the shell that wrote the pid becomes setpriv, then the agent: its status once the exec is done
  const status = `/proc/$(cat /run/argus-agent.pid)/status`;
  for (let i = 0; i < 100; i++) {
    const seen = await host.sh(`grep -E '^(Name|Uid|Groups):' "${status}" 2>/dev/null || true`);
    // the executable's own name, or Node's where the runtime names its main thread
    if (/^Name:/m.test(seen) && !/^Name:\s+(sh|setpriv)$/m.test(seen)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the agent did not start: ${await host.log().catch((error: Error) => error.message)}`);
}
