import { ExecuteContext, RoutingNode } from 'n8n-core';
import { createRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialType,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials';
import { HarnessNodeTypes } from './node-types';
import { ensureEngine } from './runtime';

/** The shape of the request errors n8n's CredentialsTester inspects. */
interface RequestFailure {
	message?: string;
	cause?: { code?: string; response?: { status: number; statusText?: string } };
}

/**
 * The steps of n8n's CredentialsTester for a credential type's `test` request: apply defaults and
 * resolve expressions ('internal' mode), then run the request as the `routing.request` of a
 * throwaway declarative node through n8n-core's RoutingNode, which authenticates with the
 * credential and sends it with n8n's HTTP helper. Outcome and messages as n8n reports them.
 */
export async function runCredentialTest(
	credentialType: ICredentialType,
	data: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
	await ensureEngine();
	const testRequest = credentialType.test;
	if (testRequest === undefined) return { status: 'Error', message: 'No testing function found for this credential.' };

	const credentialsHelper = new HarnessCredentialsHelper([credentialType], { [credentialType.name]: data });
	const additionalData = createAdditionalData({ credentialsHelper });
	const credentials: ICredentialsDecrypted = { id: 'harness-credential', name: 'Harness credential', type: credentialType.name };
	try {
		credentials.data = await credentialsHelper.applyDefaultsAndExpressions(additionalData, data, credentialType.name, 'internal');
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	// n8n borrows the NoOp node's description and replaces credentials and properties.
	const nodeType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: testRequest.request }, default: '' }],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: nodeType.description.name,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: credentials.id, name: credentials.name } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ [nodeType.description.name]: nodeType }),
	});
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);

	let response: INodeExecutionData[][] | undefined;
	try {
		response = await workflow.expression.withIsolate(async () => await new RoutingNode(context, nodeType, credentials).runNode());
	} catch (caught) {
		const error = caught as RequestFailure;
		const failedResponse = error.cause?.response;
		if (failedResponse) {
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && failedResponse.status === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (failedResponse.status < 199 || failedResponse.status > 299) {
				return { status: 'Error', message: failedResponse.statusText || `Received HTTP status code: ${failedResponse.status}` };
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	}

	for (const rule of testRequest.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const body = response?.[0]?.[0]?.json;
		if (body !== undefined && lookup(body, rule.properties.key) === rule.properties.value) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash `get` for the dotted keys of `responseSuccessBody` rules. */
function lookup(value: unknown, path: string): unknown {
	return path.split('.').reduce<unknown>((current, key) => (current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined), value);
}
