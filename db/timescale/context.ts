/** What every part of the TimescaleDB step shares: the connection, the configuration and the report. */
import type { Knex } from 'knex';
import type { RetentionConfig } from '../environment.js';
import type { Logger } from '../logger.js';

export const FAILURE_PREFIX = 'TimescaleDB setup failed (app will still start): ';

/** Logs a line and keeps it, so the caller (and the tests) see exactly what operators see. */
export class Report {
  readonly messages: string[] = [];

  constructor(private readonly log: Logger) {}

  info(message: string): void {
    this.messages.push(message);
    this.log.info(message);
  }

  /** Something an operator should act on; the step goes on. */
  warn(message: string): void {
    this.messages.push(message);
    this.log.warn(message);
  }

  failure(reason: string): void {
    const message = FAILURE_PREFIX + reason;
    this.messages.push(message);
    this.log.error(message);
  }
}

export interface StepContext {
  /** One connection, no statement timeout: conversion and backfill may take minutes. */
  knex: Knex;
  retention: RetentionConfig;
  report: Report;
}

export async function query<T>(knex: Knex, sql: string, bindings: readonly Knex.RawBinding[] = []): Promise<T[]> {
  const result = (await knex.raw(sql, [...bindings])) as { rows: T[] };
  return result.rows;
}

export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
