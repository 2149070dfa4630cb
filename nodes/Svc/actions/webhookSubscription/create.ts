import type { Subscription } from '../../contract';
import {
	eventKindProperties,
	mergeEventKinds,
	subscriptionProblems,
} from '../../shared/subscription';
import { REDACTED, userError } from '../../transport';
import { idempotencyKeyOption } from '../parameters';
import { personMustAllowText } from '../tool';
import type { Operation } from '../types';

export const create: Operation = {
	option: {
		name: 'Create',
		value: 'create',
		action: 'Create a webhook subscription',
		description:
			'Ask the service to send events to an https URL. To start workflows on events, the Svc Trigger node does this for you.',
	},
	toolDescription: `Ask Svc to send events to an https URL (a webhook subscription). ${personMustAllowText('creates nothing')} Pass URL: an https address, e.g. https://example.com/hooks/svc, and Events: event kinds such as lead.created. Returns id, url, events and created_at; the signing secret is withheld.`,
	needsPersonAsTool: true,
	properties: [
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://example.com/hooks/svc',
			description: 'The https address that receives the events, e.g. https://example.com/hooks/svc',
		},
		...eventKindProperties({ description: 'The event kinds to receive' }),
	],
	options: [
		{
			displayName: 'Include Signing Secret',
			name: 'includeSecret',
			type: 'boolean',
			// Added on purpose, so on once added: a second switch would be one more step to miss.
			default: true,
			description:
				'Whether to put the signing secret in the output. The service shows it only once; when on, it is stored in the execution data, so add this option only if you verify deliveries yourself.',
		},
		idempotencyKeyOption,
	],
	writes: true,
	async execute(op) {
		const url = op.parameter<string>('url', '').trim();
		const events = mergeEventKinds(op.parameter('events', []), op.parameter('otherEvents', ''));
		const problems = subscriptionProblems(url, events);
		if (problems.length > 0) {
			throw userError(op.ctx.getNode(), problems[0], {
				itemIndex: op.itemIndex,
				description: problems.join(' '),
			});
		}
		const body = { url, events };
		const { body: subscription } = await op.client.request<Subscription>('createSubscription', {
			body,
			idempotencyKey: op.writeKey('createSubscription', body).value,
			itemIndex: op.itemIndex,
		});
		const includeSecret = op.parameter<unknown>('options.includeSecret', false) === true;
		if (includeSecret || subscription.secret === undefined) return { ...subscription };
		op.client.redactor.add(subscription.secret);
		return { ...subscription, secret: REDACTED };
	},
};
