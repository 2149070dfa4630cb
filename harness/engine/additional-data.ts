import { ExternalSecretsProxy } from 'n8n-core';
import type { ExecutionLifecycleHooks } from 'n8n-core';
import { UnexpectedError } from 'n8n-workflow';
import type { ICredentialsHelper, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

export const DEFAULT_WEBHOOK_BASE_URL = 'http://localhost:5678/webhook';

export interface AdditionalDataOptions {
	credentialsHelper: ICredentialsHelper;
	/** Production webhook base, e.g. 'https://localhost:5678/webhook'; the other URLs share its origin. */
	webhookBaseUrl?: string;
	executionId?: string;
	hooks?: ExecutionLifecycleHooks;
}

/**
 * Mirrors n8n's `WorkflowExecuteAdditionalData.getBase()`. Every URL must be absolute: n8n-core
 * builds resume and signed URLs with `new URL()`, and `getNodeWebhookUrl` concatenates
 * `${webhookBaseUrl}/${path}`.
 */
export function createAdditionalData(
	options: AdditionalDataOptions,
): IWorkflowExecuteAdditionalData {
	const webhookBaseUrl = (options.webhookBaseUrl ?? DEFAULT_WEBHOOK_BASE_URL).replace(/\/+$/, '');
	const instanceBaseUrl = new URL('/', webhookBaseUrl).href;
	const unsupported = (what: string) => (): never => {
		throw new UnexpectedError(`${what} is not available in the in-process harness`);
	};
	return {
		credentialsHelper: options.credentialsHelper,
		executionId: options.executionId,
		hooks: options.hooks,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${instanceBaseUrl}rest`,
		instanceBaseUrl,
		webhookBaseUrl,
		webhookTestBaseUrl: `${instanceBaseUrl}webhook-test`,
		webhookWaitingBaseUrl: `${instanceBaseUrl}webhook-waiting`,
		formBaseUrl: `${instanceBaseUrl}form`,
		formTestBaseUrl: `${instanceBaseUrl}form-test`,
		formWaitingBaseUrl: `${instanceBaseUrl}form-waiting`,
		mcpBaseUrl: `${instanceBaseUrl}mcp`,
		mcpTestBaseUrl: `${instanceBaseUrl}mcp-test`,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		logAiEvent: () => {},
		getRunExecutionData: () => Promise.resolve(undefined),
		getRuntimeCredential: () => Promise.resolve(undefined),
		executeWorkflow: unsupported('Executing a sub-workflow'),
		// The Code node and other task-runner jobs need n8n's task broker.
		startRunnerTask: unsupported('The task runner'),
	};
}
