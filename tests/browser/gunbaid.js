// Starts a real gunbaid for a browser test: a fresh data directory, an
// umpire credential, gRPC and HTTP on free loopback ports (port 0; the
// addresses gunbaid prints are read back). Stop it with `await d.stop()`.
//
//   const d = await startGunbaid(GUNBAID, {umpireToken: 'u'.repeat(64),
//                                          args: ['--checkpoint-every=0']});
//   d.httpUrl   // 'http://127.0.0.1:PORT'
//   d.grpcAddr  // '127.0.0.1:PORT', for the gunbai CLI's --server
'use strict';

const {spawn} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

async function startGunbaid(binary, options = {}) {
  const dataDir = options.dataDir ||
      fs.mkdtempSync(path.join(os.tmpdir(), 'gunbai-browser-'));
  const args = ['--listen=127.0.0.1:0', '--http=127.0.0.1:0',
                `--data-dir=${dataDir}`, ...(options.args || [])];
  const env = {...process.env};
  if (options.umpireToken) env.GUNBAI_UMPIRE_TOKEN = options.umpireToken;
  const child = spawn(binary, args, {env, stdio: ['ignore', 'pipe', 'pipe']});
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const addresses = await new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(
        `gunbaid did not start in 20 s; stderr: ${stderr}`)), 20000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gunbaid exited ${code} before serving; ${stderr}`));
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const grpc = /gunbaid listening on (\S+)/.exec(stdout);
      const http = /gunbaid serving HTTP on (\S+)/.exec(stdout);
      if (grpc && http) {
        clearTimeout(timer);
        resolve({grpc: grpc[1], http: http[1]});
      }
    });
  });
  child.removeAllListeners('exit');
  return {
    httpUrl: `http://${addresses.http}`,
    grpcAddr: addresses.grpc,
    dataDir,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      const code = await exited;
      if (!options.dataDir) fs.rmSync(dataDir, {recursive: true, force: true});
      return code;
    },
  };
}

module.exports = {startGunbaid};
