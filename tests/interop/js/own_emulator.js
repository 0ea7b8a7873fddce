// An emulator of its own for a test that needs flags the shared one lacks: started from
// A2A_EMULATOR_BIN (tests/interop/run.sh sets it) on a free port. Tests using it pass
// `{ skip }`, which says why when the variable is not set.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export const EMULATOR = process.env.A2A_EMULATOR_BIN ?? '';
export const skip = EMULATOR ? false : 'A2A_EMULATOR_BIN not set (run tests/interop/run.sh)';
/** This environment without the variables that would change the emulator's card. */
export const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('A2A_')));

/** Starts the emulator with `args`; resolves to [base URL without its trailing slash, process]. */
export function startEmulator(args) {
  const child = spawn(EMULATOR, ['--port', '0', '--rate-limit', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the emulator did not start')), 60_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = line.match(/listening on (http:\/\/\S+)/);
      if (found) {
        clearTimeout(timer);
        resolve([found[1].replace(/\/$/, ''), child]);
      }
    });
    child.on('exit', () => reject(new Error('the emulator exited')));
  });
}
