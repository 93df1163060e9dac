// One structured logger: JSON lines on stdout (CloudWatch in AWS, the terminal locally).
type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const threshold = (): number => order[(process.env.LOG_LEVEL as Level | 'silent') || 'info'] ?? 20;

const write = (level: Level, msg: string, fields: Record<string, unknown> = {}) => {
  if (order[level] < threshold()) return;
  const line = JSON.stringify({ level, msg, time: new Date().toISOString(), ...fields }, (_k, v) =>
    v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v,
  );
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
};

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
