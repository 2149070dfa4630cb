import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import { EVENT_LIST_QUERY, EVENT_RETENTION_DAYS } from '../../contract';
import { desiredEvents } from '../../shared/subscription';
import { SvcClient, userError } from '../../transport';
import { claimEvents, claimFailed, claimScope, passOnClaimed } from '../exactlyOnce/claimRecord';
import type { ClaimOutcome } from '../exactlyOnce/eventClaims';
import type { LostRun } from '../exactlyOnce/claimRecord';
import { eventsPerExecution, POLL_CLIENT, readPage, toItem } from '../eventList';
import { executionPlace } from '../exactlyOnce/executionPlace';
import { startedInThisProcess } from './emittedRun';

/**
 * "Fetch Test Event": what a run would get, the newest `count` events of the chosen kinds (one,
 * or a batch), oldest first, looking back an hour, a day, then 30 days.
 */
async function newestEvents(ctx: IExecuteFunctions, count: number): Promise<INodeExecutionData[]> {
	const client = await SvcClient.connect(ctx, POLL_CLIENT);
	const kinds = desiredEvents(ctx);
	const hour = 60 * 60 * 1000;
	for (const windowMs of [hour, 24 * hour, EVENT_RETENTION_DAYS * 24 * hour]) {
		let query: IDataObject = {
			[EVENT_LIST_QUERY.createdAfter]: new Date(Date.now() - windowMs).toISOString(),
		};
		let newest: EventEnvelope[] = [];
		// A busy window is read for 50 pages at most; the newest of those are recent enough for a test.
		for (let pages = 0; pages < 50; pages++) {
			const read = await readPage(client, ctx, {
				[EVENT_LIST_QUERY.types]: kinds.join(','),
				...query,
			});
			if (read.kind === 'unavailable') throw read.error;
			if (read.kind === 'expired') break;
			newest = [...newest, ...read.page.data].slice(-count);
			const last = read.page.data[read.page.data.length - 1];
			if (!read.page.has_more || last === undefined) break;
			query = { [EVENT_LIST_QUERY.after]: last.id };
		}
		if (newest.length > 0) return newest.map((event) => toItem(event, { test: true }));
	}
	throw userError(
		ctx.getNode(),
		`No ${kinds.join(' or ')} event in the last ${EVENT_RETENTION_DAYS} days to show`,
		{
			description:
				'Make one happen in the service (for lead.created, create a lead), then fetch a test event again.',
		},
	);
}

/** The lost run whose events the poll started again in this execution (`meta.lost_run`, see emitRun in emittedRun.ts). */
function lostRunOf(meta: IDataObject | undefined): LostRun | undefined {
	const lostRun = meta?.lost_run as IDataObject | undefined;
	if (lostRun === undefined) return undefined;
	return typeof lostRun.execution === 'string' ? { execution: lostRun.execution } : {};
}

/**
 * The trigger's step inside the execution: its events (one, or a batch), claimed in n8n's record
 * shared by the workflow's Svc triggers. A repeat (read again after a crash or a slow poll, or
 * delivered by webhook too) stops here, or is left out of the batch; the poll hears from here that
 * the events are claimed. A person's Retry runs the events this execution had claimed, and not
 * those another execution ran.
 */
export async function runPulledEvents(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const mode = this.getMode();
	if (mode === 'manual') return [await newestEvents(this, eventsPerExecution(this))];
	const items = this.getInputData();
	if (mode !== 'trigger' && mode !== 'retry') return [items];
	const meta = items[0]?.json.meta as IDataObject | undefined;
	const pullId = meta?.pull_id;
	const lostRun = lostRunOf(meta);
	// Items are events this trigger emitted: each has a string id.
	const eventIds = items.map((item) => item.json.id as string);
	// Run where it was polled (n8n's regular mode): no other process writes the record.
	const here = mode === 'trigger' && typeof pullId === 'string' && startedInThisProcess(pullId);
	if (here) executionPlace.ranHere(claimScope(this));
	let outcomes: ClaimOutcome[] = [];
	let claimed = false;
	try {
		outcomes = await claimEvents(
			this,
			eventIds,
			typeof pullId === 'string' ? pullId : this.getExecutionId(),
			// A run that took over a lost one's events (emittedRun.ts) asks n8n's record, as a Retry
			// does: the claim there may be the lost run's, under this pull id.
			{ soleWriter: here, askRecord: lostRun !== undefined },
		);
		claimed = true;
	} catch (error) {
		throw claimFailed(
			this,
			error,
			'This execution keeps the events, and the next poll reads them again too.',
		);
	} finally {
		if (mode === 'trigger')
			await this.sendResponse({
				statusCode: 200,
				headers: {},
				// The execution names itself for the poll, should n8n end it without its data.
				body: { claimed, here, execution: this.getExecutionId() },
			});
	}
	return passOnClaimed(
		this,
		items,
		outcomes,
		(repeats) =>
			items.length === 1
				? 'This event already ran in another execution (read again, or delivered by webhook too), so this execution stops at the trigger'
				: `${repeats} of these ${items.length} events already ran in other executions (read again, or delivered by webhook too), so they are left out of this one`,
		lostRun,
	);
}
