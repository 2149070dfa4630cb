import type { IDataObject } from 'n8n-workflow';

import type { EventEnvelope } from '../../nodes/Svc/contract';
import {
	advancePast,
	currentPosition,
	positionQuery,
	RESUME_OVERLAP_MS,
	resumeFromTime,
	startPositionAt,
} from '../../nodes/Svc/trigger/pull/pullPosition';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const event: EventEnvelope = {
	id: 'evt_0000000000000042',
	type: 'lead.created',
	created_at: '2026-11-26T11:59:30.250Z',
	data: {},
};

describe('Svc Pull Trigger position', () => {
	it('Svc Trigger from the event list starts where its subscription began delivering, a minute back at most, and never moves a stored position', () => {
		const fresh: IDataObject = {};
		startPositionAt(fresh, '2026-11-26T11:59:58.000Z', NOW);
		expect(positionQuery(currentPosition(fresh, 'now', NOW).position)).toEqual({
			created_after: '2026-11-26T11:59:57.999Z',
		});
		// A subscription kept from an earlier publish: its old events ran from their deliveries.
		const kept: IDataObject = {};
		startPositionAt(kept, '2026-11-20T08:00:00.000Z', NOW);
		expect(positionQuery(currentPosition(kept, 'now', NOW).position)).toEqual({
			created_after: '2026-11-26T11:59:00.000Z',
		});
		const stored: IDataObject = {};
		advancePast(stored, currentPosition(stored, 'now', NOW).position, event);
		startPositionAt(stored, '2026-11-26T11:59:58.000Z', NOW);
		expect(positionQuery(currentPosition(stored, 'now', NOW).position)).toMatchObject({
			after: event.id,
		});
	});

	it('starts from now on first publish, or from the chosen time', () => {
		const staticData: IDataObject = {};
		expect(positionQuery(currentPosition(staticData, 'now', NOW).position)).toEqual({
			created_after: '2026-11-26T12:00:00.000Z',
		});
		expect(positionQuery(currentPosition({}, '2026-11-20T00:00:00.000Z', NOW).position)).toEqual({
			created_after: '2026-11-20T00:00:00.000Z',
		});
	});

	it('keeps the stored position across polls and restarts, and starts over when the start changes', () => {
		const staticData: IDataObject = {};
		const first = currentPosition(staticData, 'now', NOW).position;
		advancePast(staticData, first, event);
		// A later poll, or n8n started again with the saved static data.
		const stored = currentPosition(
			JSON.parse(JSON.stringify(staticData)) as IDataObject,
			'now',
			NOW + 60_000,
		).position;
		expect(positionQuery(stored)).toEqual({ after: event.id });
		const restarted = currentPosition(staticData, '2026-11-01T00:00:00.000Z', NOW).position;
		expect(positionQuery(restarted)).toEqual({ created_after: '2026-11-01T00:00:00.000Z' });
	});

	it('after a 410 reads again from a little before the last event it ran, never after it', () => {
		const staticData: IDataObject = {};
		const past = advancePast(staticData, currentPosition(staticData, 'now', NOW).position, event);
		const resumed = resumeFromTime(staticData, past);
		expect(positionQuery(resumed)).toEqual({
			created_after: new Date(Date.parse(event.created_at) - RESUME_OVERLAP_MS).toISOString(),
		});
		expect(positionQuery(currentPosition(staticData, 'now', NOW).position)).toEqual(
			positionQuery(resumed),
		);
	});

	it("reads on from this process's last position when it is past the stored one, never from one made for another start", () => {
		const staticData: IDataObject = {};
		const first = currentPosition(staticData, 'now', NOW).position;
		const stored = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		const here = advancePast(staticData, first, event);
		expect(currentPosition(stored, 'now', NOW, here)).toEqual({
			position: here,
			from: 'here',
		});
		// What n8n stored is as far on: it is used.
		expect(currentPosition({ ...staticData }, 'now', NOW, first).from).toBe('stored');
		// The person chose another start: it starts over from there.
		const restarted = currentPosition(stored, '2026-11-01T00:00:00.000Z', NOW, here);
		expect(restarted).toEqual({
			position: { createdAfter: '2026-11-01T00:00:00.000Z', start: '2026-11-01T00:00:00.000Z' },
			from: 'start',
		});
	});
});
