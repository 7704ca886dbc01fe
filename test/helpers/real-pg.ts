import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The newest Debian PostgreSQL server's bin folder, or undefined when none is installed. */
export function pgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RealPg {
  url: string;
  stop(): void;
  start(): void;
  /** Stops the server and deletes its folder. */
  remove(): void;
}

/**
 * A throwaway PostgreSQL server from the Debian package in a temp folder, on 127.0.0.1 and a free
 * port, trust authentication. As root the server runs as `postgres` (initdb refuses root).
 */
export async function startRealPg(bin: string, options: { ssl?: { cert: string; key: string } } = {}): Promise<RealPg> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-pg-'));
  const data = path.join(dir, 'data');
  const root = process.getuid?.() === 0;
  const as = (cmd: string, args: string[]) => (root ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' }));
  if (root) execFileSync('chown', ['postgres:postgres', dir]);
  as(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  let opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`;
  if (options.ssl) {
    // the server's certificate and key in its folder, the key readable by the server's user only
    const cert = path.join(dir, 'server.crt');
    const key = path.join(dir, 'server.key');
    fs.copyFileSync(options.ssl.cert, cert);
    fs.copyFileSync(options.ssl.key, key);
    fs.chmodSync(key, 0o600);
    if (root) execFileSync('chown', ['postgres:postgres', cert, key]);
    opts += ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}`;
  }
  const start = () => as(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']);
  const stop = () => {
    try {
      as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      /* already stopped */
    }
  };
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove() {
      stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
