import { UsageError } from '../errors.js';

type CronModule = typeof import('croner');
let loading: Promise<CronModule> | undefined;
// croner is loaded on the first schedule, never on the start-up path.
const croner = () => (loading ??= import('croner'));

/**
 * A 5-field cron expression (minute hour day-of-month month day-of-week) in local time, as
 * Claude Code's CronCreate and crontab(5) read it: day-of-month and day-of-week match either
 * (OR), as in Vixie cron. Throws a UsageError naming the problem for anything else.
 */
export async function checkCron(expression: string): Promise<void> {
  await nextCronRun(expression, new Date());
}

/** The first time strictly after `after` that `expression` matches (in `timezone`, an IANA name, else local time), or undefined when it never does again. */
export async function nextCronRun(expression: string, after: Date, timezone?: string): Promise<Date | undefined> {
  const { Cron } = await croner();
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5)
    throw new UsageError(`"${expression}" is not a 5-field cron expression (minute hour day-of-month month day-of-week, e.g. "*/5 * * * *").`);
  let job: InstanceType<CronModule['Cron']>;
  try {
    job = new Cron(fields.join(' '), { paused: true, mode: '5-part', domAndDow: false, ...(timezone ? { timezone } : {}) });
  } catch (error) {
    throw new UsageError(`"${expression}" is not a valid cron expression: ${(error as Error).message}`);
  }
  return job.nextRun(after) ?? undefined;
}
