import { readdirSync, readFileSync } from "node:fs";

/** Linux clock ticks per second (USER_HZ); 100 on every mainstream kernel. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  ticks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** Busy ticks of the whole machine (all cores), from /proc/stat. */
function machineBusyTicks(): number {
  try {
    const first = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
    const [, user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/).map(Number);
    return user! + nice! + system! + irq! + softirq! + (steal ?? 0);
  } catch {
    return 0;
  }
}

/** Every live pid with its parent and CPU ticks (utime + stime). */
function allStats(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return stats;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  return stats;
}

/**
 * CPU accounting by named group of processes. A group is a root pid and,
 * when `tree` is set, all its descendants (PostgreSQL's backends). Ticks of
 * processes that end between two snapshots are lost, so short-lived backends
 * are under-counted; the bench keeps its connections open, so this is small.
 */
export class CpuMeter {
  private readonly groups = new Map<string, { pid: number; tree: boolean }>();

  track(name: string, pid: number | undefined, tree = false): void {
    if (pid) this.groups.set(name, { pid, tree });
  }

  untrack(name: string): void {
    this.groups.delete(name);
  }

  /** Ticks per group now; `machine` holds the whole machine's busy ticks. */
  snapshot(): { at: number; ticks: Map<string, number>; machine: number } {
    const machine = machineBusyTicks();
    const stats = allStats();
    const children = new Map<number, number[]>();
    for (const [pid, stat] of stats) {
      const list = children.get(stat.ppid) ?? [];
      list.push(pid);
      children.set(stat.ppid, list);
    }
    const ticks = new Map<string, number>();
    for (const [name, group] of this.groups) {
      let sum = 0;
      const queue = [group.pid];
      while (queue.length) {
        const pid = queue.pop()!;
        sum += stats.get(pid)?.ticks ?? 0;
        if (group.tree) queue.push(...(children.get(pid) ?? []));
      }
      ticks.set(name, sum);
    }
    return { at: performance.now(), ticks, machine };
  }

  /**
   * CPU use per group between two snapshots, in % of one core. `other` is what
   * the rest of the machine used meanwhile (anything not tracked: other
   * programs, this orchestrator); `idle` what was left of all cores.
   */
  static usage(
    before: { at: number; ticks: Map<string, number>; machine: number },
    after: { at: number; ticks: Map<string, number>; machine: number },
    cores: number,
  ): Record<string, number> {
    const seconds = (after.at - before.at) / 1000;
    const usage: Record<string, number> = {};
    if (seconds <= 0) return usage;
    const percent = (ticks: number) => ((ticks / TICKS_PER_SECOND) / seconds) * 100;
    let tracked = 0;
    for (const [name, end] of after.ticks) {
      const start = before.ticks.get(name);
      if (start === undefined) continue;
      const value = percent(end - start);
      tracked += value;
      if (value >= 0.5) usage[name] = Math.round(value);
    }
    const machine = percent(after.machine - before.machine);
    usage.other = Math.max(0, Math.round(machine - tracked));
    usage.idle = Math.max(0, Math.round(cores * 100 - machine));
    return usage;
  }
}
