// Reading one setting from the environment: a bad value stops the process with a line naming the setting.

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new ConfigError(`${name} must be on/off (or true/false, 1/0, yes/no), got "${raw}"`);
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function choice<T extends string>(env: Env, name: string, options: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(options as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${options.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function accountIdSetting(env: Env, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new ConfigError(`${name} must be a numeric account id, got "${raw}"`);
  return Number(raw);
}
