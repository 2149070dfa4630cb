import type { IHookFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { KnownEventKind } from '../contract';
import { KNOWN_EVENT_KINDS, SUBSCRIPTION_URL_PROTOCOL } from '../contract';
import { asText } from './text';

/** Keyed by kind, so a kind added to the contract does not compile without its text. */
const EVENT_KIND_TEXT: Record<
	KnownEventKind,
	{ name: string; action: string; description: string }
> = {
	'lead.created': {
		name: 'Lead Created',
		action: 'On lead created',
		description: 'A lead was created',
	},
	'campaign.updated': {
		name: 'Campaign Updated',
		action: 'On campaign updated',
		description: 'A campaign changed, e.g. it was dispatched',
	},
};

/**
 * The event kinds offered in the lists: the contract's known kinds, in its order. n8n's node panel
 * lists a trigger's event options as entries under the app, by their `action`: `route` tells the
 * two triggers' entries apart there ("On lead created (polled, no public URL)").
 */
export function eventKindOptions(route?: EventRoute): INodePropertyOptions[] {
	return KNOWN_EVENT_KINDS.map((value) => {
		const text = EVENT_KIND_TEXT[value];
		return {
			...text,
			action: route ? `${text.action} (${route.entry})` : text.action,
			value,
		};
	});
}

/** How a trigger gets its events, in the words of its panel entries and its canvas subtitle. */
export interface EventRoute {
	entry: string;
	subtitle: string;
}

export const WEBHOOK_ROUTE: EventRoute = {
	entry: 'instant, needs a public URL',
	subtitle: 'webhook',
};
export const PULL_ROUTE: EventRoute = { entry: 'polled, no public URL', subtitle: 'polled' };

/**
 * A trigger's subtitle: the chosen events by the names the list shows, and how they come ("Lead
 * Created +1 · polled"), short enough for the canvas, where both triggers have the same icon.
 */
export function eventKindsSubtitle(route: EventRoute): string {
	const names = JSON.stringify(
		Object.fromEntries(eventKindOptions().map((option) => [option.value, option.name])),
	);
	return `={{ ((names) => (names.length > 1 ? names[0] + " +" + (names.length - 1) + " · " : names.length === 1 ? names[0] + " · " : "") + "${route.subtitle}")([].concat($parameter["events"] || [], String($parameter["otherEvents"] || "").split(",")).map((kind) => String(kind).trim()).filter((kind) => kind !== "").map((kind) => (${names})[kind] || kind)) }}`;
}

/**
 * The two fields that choose a subscription's events, read together with mergeEventKinds: the
 * known kinds from the list (named "Events", so n8n's node panel offers a trigger one entry per
 * option), and any others typed in. `events` sets that list's description and whether it is required;
 * `route`, a trigger's, its entries' words.
 */
export function eventKindProperties(
	events: Pick<INodeProperties, 'description' | 'required'>,
	route?: EventRoute,
): INodeProperties[] {
	const otherKinds =
		'Event kinds not in the list, comma-separated; the service may know more kinds than this node';
	return [
		{
			displayName: 'Events',
			name: 'events',
			type: 'multiOptions',
			options: eventKindOptions(route),
			default: ['lead.created'],
			...events,
		},
		{
			displayName: 'Other Event Kinds',
			name: 'otherEvents',
			type: 'string',
			default: '',
			placeholder: 'e.g. lead.updated',
			// A required list left empty greys out n8n's test buttons ("Complete required fields first").
			description: events.required
				? `${otherKinds}. They are added to the kinds picked under Events, where at least one must be picked.`
				: otherKinds,
		},
	];
}

/** Problems with a subscription request, in words a user can act on; empty when it is fine. */
export function subscriptionProblems(url: string, events: string[]): string[] {
	const problems: string[] = [];
	let parsed: URL | undefined;
	try {
		parsed = new URL(url);
	} catch {
		problems.push(`The URL "${url}" is not a valid URL.`);
	}
	if (parsed && parsed.protocol !== SUBSCRIPTION_URL_PROTOCOL) {
		problems.push(
			`The URL must start with https:// (the service delivers events only over https); got ${parsed.protocol}//.`,
		);
	}
	if (events.length === 0)
		problems.push(`Choose at least one event, e.g. ${KNOWN_EVENT_KINDS.join(' or ')}.`);
	return problems;
}

/** Known kinds picked from the list plus any typed-in kinds, without blanks or repeats. */
export function mergeEventKinds(picked: unknown, typed: unknown): string[] {
	const list = [
		...(Array.isArray(picked) ? picked.map(asText) : []),
		...asText(typed).split(/[\s,]+/),
	];
	return [...new Set(list.map((kind) => kind.trim()).filter((kind) => kind !== ''))];
}

/** The event kinds a trigger's two fields (eventKindProperties) choose, as both triggers read them. */
export function desiredEvents(ctx: Pick<IHookFunctions, 'getNodeParameter'>): string[] {
	return mergeEventKinds(
		ctx.getNodeParameter('events', []),
		ctx.getNodeParameter('otherEvents', ''),
	);
}

/** Same events regardless of order. */
export function sameEventKinds(a: readonly string[], b: readonly string[]): boolean {
	const left = [...new Set(a)].sort();
	const right = [...new Set(b)].sort();
	return left.length === right.length && left.every((kind, index) => kind === right[index]);
}
