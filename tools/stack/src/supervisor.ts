/**
 * `npm start`'s supervision of the platform's processes: one that exits while
 * the platform is not stopping is started again, with the same environment,
 * after the pause its RestartPolicy says (each restart logged in one line with
 * its exit code or signal); the others keep serving meanwhile. A process that
 * crashes too often in too short a time is not restarted: `onGiveUp` is told,
 * and the caller stops the platform. Once `stop()` is called nothing is
 * restarted any more and every exit is reported as a step of the shutdown.
 */
import type { Platform, RunningProcess } from "@payin/launcher";
import { DEFAULT_RESTART_POLICY, RestartPolicy, type RestartPolicyOptions } from "./restart-policy.js";

export interface SupervisorOptions {
  /** The running platform: its processes, and how to start one again. */
  readonly platform: Pick<Platform, "processes" | "start">;
  /** Where the supervisor's lines go (restarts, and the processes stopped in a shutdown). */
  log(line: string): void;
  /** A process is running: at the start, and after each restart. */
  onStarted?(name: string, pid: number): void;
  /** `name` crashed too often: `message` says so in one line; the platform must stop. */
  onGiveUp(name: string, message: string): void;
  readonly policy?: RestartPolicyOptions;
  /** The clock (tests give their own). */
  now?(): number;
}

export interface Supervisor {
  /**
   * Stops supervising: restarts still waiting are dropped and those under way
   * awaited (the platform's stopAll then stops what they started). Resolves
   * once none is under way; the same promise however often it is called.
   */
  stop(): Promise<void>;
}

/** How a process ended, as the log says it: `code 1`, or `code null, signal SIGKILL`. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `code ${code}, signal ${signal}` : `code ${code}`;
}

/** Milliseconds as the log says them: `0.5 s`, `10 s`. */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export function supervise(options: SupervisorOptions): Supervisor {
  const { platform, log } = options;
  const now = options.now ?? Date.now;
  const policies = new Map<string, RestartPolicy>();
  const waiting = new Set<NodeJS.Timeout>();
  const starting = new Set<Promise<void>>();
  let stopped: Promise<void> | undefined;

  const policyOf = (name: string) => {
    let policy = policies.get(name);
    if (!policy) policies.set(name, (policy = new RestartPolicy(options.policy ?? DEFAULT_RESTART_POLICY)));
    return policy;
  };

  const watch = (name: string, proc: RunningProcess) => {
    policyOf(name).started(now());
    if (proc.child.pid !== undefined) options.onStarted?.(name, proc.child.pid);
    void proc.exited.then((code) => {
      const how = describeExit(code, proc.child.signalCode);
      if (stopped) log(`  ${name} stopped${code === 0 ? "" : ` (${how})`}`);
      else crashed(name, `${name} exited (${how})`);
    });
  };

  /** `name` is not running and nobody asked it to stop: restart it later, or give up. */
  const crashed = (name: string, what: string) => {
    const decision = policyOf(name).exited(now());
    if (decision.kind === "give-up") {
      options.onGiveUp(
        name,
        `${what}: ${decision.crashes} crashes within ${seconds(decision.windowMs)}, so it is not restarted; stopping the platform (${name}'s log lines above say why)`,
      );
      return;
    }
    log(`${what}; restarting in ${seconds(decision.delayMs)}`);
    const timer = setTimeout(() => {
      waiting.delete(timer);
      restart(name);
    }, decision.delayMs);
    waiting.add(timer);
  };

  const restart = (name: string) => {
    if (stopped) return;
    const attempt = platform.start(name).then(
      () => {
        const proc = platform.processes.get(name)!;
        if (!stopped) log(`${name} restarted`);
        watch(name, proc);
      },
      (error: unknown) => {
        // It never became ready (and has ended: startProcess saw to that).
        if (!stopped) crashed(name, `${name} failed to start (${error instanceof Error ? error.message : String(error)})`);
      },
    );
    starting.add(attempt);
    void attempt.finally(() => starting.delete(attempt));
  };

  for (const [name, proc] of platform.processes) watch(name, proc);

  return {
    stop() {
      stopped ??= (async () => {
        for (const timer of waiting) clearTimeout(timer);
        waiting.clear();
        await Promise.all([...starting]);
      })();
      return stopped;
    },
  };
}
