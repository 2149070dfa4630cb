/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { Webhook } from 'standardwebhooks';

import type { EventEnvelope } from '../nodes/Svc/contract';
import { EVENT_SIGNATURE } from '../nodes/Svc/contract';
import type { Collection } from './collection';
import { notFound } from './errors';
import type { EventLog } from './event-log';
import { newId } from './ids';
import { Slots } from './slots';
import type { StoredSubscription } from './store';
import { Timers } from './timers';

interface DeliveryOptions {
	timeoutMs: number;
	/** The wait before each retry; one more attempt than there are delays. */
	retryDelaysMs: number[];
	trustedCa?: string | Buffer;
}

export interface DeliveryAttempt {
	eventId: string;
	/** The webhook-id header: the event id, the same on every attempt and re-delivery. */
	webhookId: string;
	eventType: string;
	subscriptionId: string;
	url: string;
	/** 1 for the first try of a delivery, counting up through its retries. */
	attempt: number;
	redelivery: boolean;
	startedAt: string;
	webhookTimestamp: string;
	/** The receiver's status, or null when there was none (network error, timeout). */
	status: number | null;
	error: string | null;
	ok: boolean;
	durationMs: number;
}

interface StoredEvent {
	envelope: EventEnvelope;
	/** Kept byte for byte, so a re-delivery signs and sends exactly the same body. */
	payload: string;
}

/**
 * Signs and sends events to subscriptions, retrying like the service does: same webhook-id,
 * fresh timestamp and signature on every attempt. Signing uses the `standardwebhooks` package,
 * independent of the node's own verifier.
 */
export class Deliveries {
	private readonly events = new Map<string, StoredEvent>();
	private attemptLog: DeliveryAttempt[] = [];
	private readonly pending = new Set<Promise<void>>();
	private readonly inFlight = new Set<ClientRequest>();
	private readonly timers = new Timers();
	/** Attempts in flight; unlimited unless a burst sets a concurrency. */
	private readonly slots = new Slots();
	private readonly agent: Agent;
	/** Bumped by reset and close: deliveries of an older generation stop at their next step. */
	private generation = 0;

	constructor(
		private readonly options: DeliveryOptions,
		private readonly subscriptions: Collection<StoredSubscription>,
		private readonly clock: () => number,
		private readonly eventLog: EventLog,
	) {
		// Without keep-alive, so closing leaves no idle socket behind.
		this.agent = new Agent({
			keepAlive: false,
			ca:
				options.trustedCa === undefined
					? undefined
					: [...rootCertificates, options.trustedCa.toString()],
		});
	}

	/** Stores the event and starts one delivery per subscription that wants its type. */
	emit(type: string, data: Record<string, unknown>): { event: EventEnvelope; deliveries: number } {
		const envelope: EventEnvelope = {
			id: newId('evt'),
			type,
			created_at: new Date(this.clock()).toISOString(),
			data: structuredClone(data),
		};
		const event = { envelope, payload: JSON.stringify(envelope) };
		this.events.set(envelope.id, event);
		this.eventLog.add(envelope);
		return { event: envelope, deliveries: this.deliverToSubscribers(event, false) };
	}

	/** Sends a stored event again, to the subscriptions that want its type now. */
	redeliver(eventId: string): number {
		const event = this.events.get(eventId);
		if (!event) throw notFound('event', eventId);
		return this.deliverToSubscribers(event, true);
	}

	listEvents(): EventEnvelope[] {
		return [...this.events.values()].map(({ envelope }) => envelope);
	}

	attempts(filter: { eventId?: string; subscriptionId?: string } = {}): DeliveryAttempt[] {
		return this.attemptLog.filter(
			(attempt) =>
				(filter.eventId === undefined || attempt.eventId === filter.eventId) &&
				(filter.subscriptionId === undefined || attempt.subscriptionId === filter.subscriptionId),
		);
	}

	/** At most `limit` attempts in flight from now on (undefined: no limit); later ones wait their turn. */
	limitConcurrency(limit: number | undefined): void {
		this.slots.setLimit(limit);
	}

	/** Resolves once no delivery is sending or waiting to retry. */
	async idle(): Promise<void> {
		while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
	}

	/** Drops events and attempts, and stops every delivery under way. */
	reset(): void {
		this.stopAll();
		this.slots.setLimit(undefined);
		this.events.clear();
		this.eventLog.clear();
		this.attemptLog = [];
	}

	close(): void {
		this.stopAll();
		this.agent.destroy();
	}

	private stopAll(): void {
		this.generation++;
		this.timers.cancelAll();
		this.slots.cancelWaiting();
		for (const req of this.inFlight) req.destroy(new Error('sandbox stopped'));
	}

	private deliverToSubscribers(event: StoredEvent, redelivery: boolean): number {
		let count = 0;
		for (const subscription of this.subscriptions.values()) {
			if (!subscription.events.includes(event.envelope.type)) continue;
			count++;
			const task = this.deliver(event, subscription.id, redelivery).finally(() =>
				this.pending.delete(task),
			);
			this.pending.add(task);
		}
		return count;
	}

	private async deliver(
		event: StoredEvent,
		subscriptionId: string,
		redelivery: boolean,
	): Promise<void> {
		const generation = this.generation;
		for (let attempt = 1; ; attempt++) {
			// A subscription deleted between retries gets nothing more.
			const subscription = this.subscriptions.get(subscriptionId);
			if (!subscription || generation !== this.generation) return;
			if (!(await this.slots.take())) return;
			const record = await this.attempt(event, subscription, attempt, redelivery).finally(() =>
				this.slots.release(),
			);
			if (generation !== this.generation) return;
			this.attemptLog.push(record);
			const delay = this.options.retryDelaysMs[attempt - 1];
			if (record.ok || delay === undefined) return;
			if (!(await this.timers.sleep(delay))) return;
		}
	}

	private async attempt(
		event: StoredEvent,
		subscription: StoredSubscription,
		attempt: number,
		redelivery: boolean,
	): Promise<DeliveryAttempt> {
		const webhookId = event.envelope.id;
		const sentAt = this.clock();
		const webhookTimestamp = String(Math.floor(sentAt / 1000));
		const signature = new Webhook(subscription.secret).sign(
			webhookId,
			new Date(sentAt),
			event.payload,
		);
		const started = performance.now();
		let status: number | null = null;
		let error: string | null = null;
		try {
			status = await this.post(subscription.url, event.payload, {
				'content-type': 'application/json',
				[EVENT_SIGNATURE.idHeader]: webhookId,
				[EVENT_SIGNATURE.timestampHeader]: webhookTimestamp,
				[EVENT_SIGNATURE.signatureHeader]: signature,
			});
		} catch (failure) {
			error = failure instanceof Error ? failure.message : String(failure);
		}
		return {
			eventId: webhookId,
			webhookId,
			eventType: event.envelope.type,
			subscriptionId: subscription.id,
			url: subscription.url,
			attempt,
			redelivery,
			startedAt: new Date(sentAt).toISOString(),
			webhookTimestamp,
			status,
			error,
			ok: status !== null && status >= 200 && status < 300,
			durationMs: Math.round(performance.now() - started),
		};
	}

	/** The receiver's status once its whole response arrived within the timeout. */
	private post(url: string, payload: string, headers: Record<string, string>): Promise<number> {
		return new Promise((resolve, reject) => {
			const req = request(url, {
				method: 'POST',
				agent: this.agent,
				headers: { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
			});
			const timeout = setTimeout(
				() => req.destroy(new Error(`no response within ${this.options.timeoutMs} ms`)),
				this.options.timeoutMs,
			);
			this.inFlight.add(req);
			req.on('response', (res) => {
				res.on('error', reject);
				res.on('end', () => resolve(res.statusCode ?? 0));
				res.resume();
			});
			req.on('error', reject);
			// 'close' comes after the response's 'end' on success; before it, the connection died.
			req.on('close', () => {
				clearTimeout(timeout);
				this.inFlight.delete(req);
				reject(new Error('connection closed before the response was complete'));
			});
			req.end(payload);
		});
	}
}
