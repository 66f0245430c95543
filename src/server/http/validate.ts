// Checks on request bodies: every field typed and bounded, every failure a
// 400 naming the field and what it should be.
import { badRequest } from './errors.js';
import { SESSION_NAME_RULE } from '../../protocol/api/index.js';

type Body = Record<string, unknown>;

export function optString(body: Body, key: string, opts: { max?: number; pattern?: RegExp; hint?: string } = {}): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(`"${key}" must be a string`);
  if (opts.max !== undefined && v.length > opts.max) throw badRequest(`"${key}" is longer than ${opts.max} characters`);
  if (opts.pattern && !opts.pattern.test(v)) throw badRequest(`"${key}" ${opts.hint ?? `must match ${opts.pattern}`}`);
  return v;
}

export function reqString(body: Body, key: string, opts: { max?: number; pattern?: RegExp; hint?: string } = {}): string {
  const v = optString(body, key, opts);
  if (v === undefined) throw badRequest(`"${key}" is required`);
  return v;
}

export function optInt(body: Body, key: string, min: number, max: number): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`"${key}" must be a whole number`);
  if (v < min || v > max) throw badRequest(`"${key}" must be between ${min} and ${max}`);
  return v;
}

export function reqInt(body: Body, key: string, min: number, max: number): number {
  const v = optInt(body, key, min, max);
  if (v === undefined) throw badRequest(`"${key}" is required`);
  return v;
}

export function optStringArray(body: Body, key: string, opts: { maxItems: number; maxLength: number }): string[] | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`"${key}" must be an array of strings`);
  if (v.length > opts.maxItems) throw badRequest(`"${key}" has more than ${opts.maxItems} items`);
  if (v.some((x: string) => x.length > opts.maxLength)) throw badRequest(`an item of "${key}" is longer than ${opts.maxLength} characters`);
  return v as string[];
}

export function optStringMap(body: Body, key: string, opts: { maxItems: number; maxLength: number }): Record<string, string> | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`"${key}" must be an object of strings`);
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > opts.maxItems) throw badRequest(`"${key}" has more than ${opts.maxItems} entries`);
  for (const [k, val] of entries) {
    if (typeof val !== 'string') throw badRequest(`"${key}.${k}" must be a string`);
    if (k.length + val.length > opts.maxLength) throw badRequest(`"${key}.${k}" is too long`);
  }
  return v as Record<string, string>;
}

export { SESSION_NAME_PATTERN } from '../../protocol/api/index.js';
export const SESSION_NAME_HINT = `must be ${SESSION_NAME_RULE}`;
