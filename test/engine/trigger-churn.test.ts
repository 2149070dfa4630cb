/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { shutdownEngine } from '../../harness/engine';
import { createSvcTrigger, useSandbox } from '../../harness/engine/svc';

const sandbox = useSandbox();
afterAll(async () => await shutdownEngine());

describe('trigger lifecycle under churn', () => {
	it('50 activate/deactivate cycles with static data loss and remote deletion between them: never two live, none leaked', async () => {
		const t = await createSvcTrigger(sandbox(), {
			webhookId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
		});
		// A subscription of someone else's at another URL must survive all of it.
		sandbox().state.store.subscriptions.set({
			id: 'sub_foreign',
			url: 'https://elsewhere.example.com/hook',
			events: ['lead.created'],
			created_at: sandbox().state.now(),
			secret: 'whsec_Zm9yZWlnbi1zZWNyZXQtMDEyMzQ1Njc4OQ==',
		});
		const atThisUrl = () =>
			[...sandbox().state.store.subscriptions.values()].filter(
				(subscription) => subscription.url === t.webhookUrl,
			);
		let mostLive = 0;
		for (let cycle = 0; cycle < 50; cycle++) {
			await t.activate();
			mostLive = Math.max(mostLive, atThisUrl().length);
			expect(atThisUrl()).toHaveLength(1);
			if (cycle % 3 === 0) for (const key of Object.keys(t.staticData)) delete t.staticData[key];
			if (cycle % 5 === 1) sandbox().state.store.subscriptions.delete(atThisUrl()[0].id);
			if (cycle % 7 === 2) {
				// Activation again without a deactivation in between (n8n restarting, say).
				await t.activate();
				mostLive = Math.max(mostLive, atThisUrl().length);
			}
			await t.delete();
			expect(atThisUrl()).toHaveLength(0);
		}
		expect(mostLive).toBe(1);
		expect(sandbox().state.store.subscriptions.get('sub_foreign')).toBeDefined();
		expect(sandbox().state.stats.snapshot().subscriptionsCreated).toBeGreaterThanOrEqual(50);
	}, 120_000);
});
