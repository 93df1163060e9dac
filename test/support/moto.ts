// moto's server (`moto_server`, on these machines and in CI: .ci/run) on a free loopback port, for the tests that
// need an AWS service the emulators do not have: SSM (test/integration/secrets.test.ts) and CloudFormation with S3
// (the deploy rehearsal). A machine without it fails those tests, saying how to install it; nothing skips.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../infra/local/emulators';

const INSTALL_MOTO = "moto's server is needed for this test: `python3 -m pip install 'moto[server]'` (Debian 12 packages no moto) provides `moto_server`";

export type Moto = { url: string; child: ChildProcess };

/** Starts moto_server and waits until it answers (at most 60 s). */
export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'ENOENT' ? INSTALL_MOTO : `moto_server did not start: ${err.message}`)),
    );
    child.once('exit', (code) => reject(new Error(`moto_server exited (${code}) before answering; ${INSTALL_MOTO}\n${output}`)));
  });
  failed.catch(() => undefined);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answered = await Promise.race([
      fetch(`${url}/moto-api/`).then((res) => res.body?.cancel().then(() => true) ?? true, () => false),
      failed,
    ]);
    if (answered) return { url, child };
    if (Date.now() > deadline) throw new Error(`moto_server did not answer on ${url} within 60 s\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops it, its process group included, and waits for it to exit. */
export async function stopMoto(moto: Moto | undefined): Promise<void> {
  const child = moto?.child;
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}
