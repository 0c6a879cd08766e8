import type { FastifyRequest } from 'fastify';
import type { EventBus } from '../events/bus.js';
import type { TaskHandler } from '../tasks/worker.js';
import type { App } from './types.js';

/**
 * What an area's compose() hands over besides its services: app.ts and the composition root loop over these, so no
 * route, task handler or listener is registered anywhere else. `Credentials` is the identity area's type (this layer
 * knows no area).
 */
export interface AreaWiring<Credentials = never> {
  /**
   * onRequest steps that must run before the caller is resolved (the Komga prefix gate); each may return one more
   * source of credentials, asked in turn after the usual headers.
   */
  beforeAuth?: ReadonlyArray<(app: App) => ((request: FastifyRequest) => Credentials | undefined) | undefined>;
  /** Route groups under `/api/v1`, registered in this order. */
  api?: ReadonlyArray<(v1: App) => void | Promise<void>>;
  /** Route groups outside `/api/v1` (health, the feeds, the device protocols), registered after it. */
  root?: ReadonlyArray<(app: App) => void | Promise<void>>;
  /** Task handlers by task type: the one worker runs them. */
  tasks?: Readonly<Record<string, TaskHandler>>;
  /** Subscribes the area's listeners to the bus; called once. */
  listen?: (bus: EventBus) => void;
  /** Background work of the area, started after the task worker (schedules, watching) and stopped before it. */
  start?: () => Promise<void>;
  stop?: () => Promise<void>;
  /** Lets go of what the background work used (analysis threads), once the task worker has stopped. */
  release?: () => Promise<void>;
  /** Closes what the area holds open for requests (pools, timers), at shutdown after the background work. */
  close?: () => void | Promise<void>;
}

/** One area as composed: its services and its wiring. */
export interface ComposedArea<Services, Credentials = never> {
  services: Services;
  wiring: AreaWiring<Credentials>;
}
