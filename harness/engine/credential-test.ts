import { CredentialTestContext, ExecuteContext, RoutingNode } from 'n8n-core';
import { createRunExecutionData, NodeConnectionTypes, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunction,
	ICredentialTestRequest,
	ICredentialType,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	IVersionedNodeType,
} from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials';
import type { NodeTypeMap } from './node-types';
import { HarnessNodeTypes } from './node-types';
import { ensureEngine } from './runtime';

/** The shape of the request errors n8n's CredentialsTester inspects. */
interface RequestFailure {
	message?: string;
	cause?: { code?: string; response?: { status: number; statusText?: string } };
}

export interface CredentialTestOptions {
	/**
	 * The node types that use the credential, in the order n8n's loader lists them (the package's
	 * `n8n.nodes`, then tool copies). n8n looks among them for a `testedBy` when the credential
	 * type has no `test` of its own.
	 */
	nodeTypes?: NodeTypeMap;
}

/** A declarative test: the request, and the node whose description n8n borrows to send it. */
interface RequestTest {
	testRequest: ICredentialTestRequest;
	nodeType?: INodeType;
}

function isVersioned(nodeType: INodeType | IVersionedNodeType): nodeType is IVersionedNodeType {
	return 'nodeVersions' in nodeType;
}

/**
 * n8n's CredentialsTester.getCredentialTestFunction (1.123 and 2.41 alike): the type's own `test`
 * wins; otherwise the first node whose credentials entry for the type has `testedBy`, a method
 * name in `methods.credentialTest` (newest version first) or a request. n8n's answer for OAuth2
 * types (the stored token decides) is not modelled.
 */
function findCredentialTest(
	credentialType: ICredentialType,
	nodeTypes: NodeTypeMap,
): ICredentialTestFunction | RequestTest | undefined {
	if (credentialType.test) return { testRequest: credentialType.test };
	for (const node of Object.values(nodeTypes)) {
		const versions = isVersioned(node) ? Object.values(node.nodeVersions) : [node];
		for (const nodeType of versions) {
			for (const { name, testedBy } of nodeType.description.credentials ?? []) {
				if (name !== credentialType.name || !testedBy) continue;
				if (typeof testedBy !== 'string') return { nodeType, testRequest: testedBy };
				if (isVersioned(node)) {
					for (const version of Object.keys(node.nodeVersions).sort().reverse()) {
						const credentialTest = node.nodeVersions[Number(version)].methods?.credentialTest;
						if (credentialTest && testedBy in credentialTest) return credentialTest[testedBy];
					}
					return undefined;
				}
				return node.methods?.credentialTest?.[testedBy];
			}
		}
	}
	return undefined;
}

/**
 * The steps of n8n's CredentialsTester.testCredentials: find the test (see findCredentialTest),
 * apply defaults and resolve expressions ('internal' mode), then either call the node's
 * credentialTest method with n8n-core's CredentialTestContext, or run the test request as the
 * `routing.request` of a throwaway declarative node through n8n-core's RoutingNode, which
 * authenticates with the credential and sends it with n8n's HTTP helper. Outcome and messages as
 * n8n reports them.
 */
export async function runCredentialTest(
	credentialType: ICredentialType,
	data: ICredentialDataDecryptedObject,
	options: CredentialTestOptions = {},
): Promise<INodeCredentialTestResult> {
	await ensureEngine();
	const testFunction = findCredentialTest(credentialType, options.nodeTypes ?? {});
	if (testFunction === undefined)
		return { status: 'Error', message: 'No testing function found for this credential.' };

	const credentialsHelper = new HarnessCredentialsHelper([credentialType], {
		[credentialType.name]: data,
	});
	const additionalData = createAdditionalData({ credentialsHelper });
	const credentials: ICredentialsDecrypted = {
		id: 'harness-credential',
		name: 'Harness credential',
		type: credentialType.name,
	};
	try {
		credentials.data = await credentialsHelper.applyDefaultsAndExpressions(
			additionalData,
			data,
			credentialType.name,
			'internal',
		);
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	// n8n also masks values that came from external secrets ($secrets): the harness has none.
	if (typeof testFunction === 'function')
		return await testFunction.call(new CredentialTestContext(additionalData), credentials);
	const testRequest = testFunction.testRequest;

	// n8n borrows the testing node's description (the NoOp node's for a type's own `test`) and
	// replaces credentials and properties.
	const baseDescription: INodeType['description'] = testFunction.nodeType?.description ?? {
		displayName: 'No Operation, do nothing',
		name: 'n8n-nodes-base.noOp',
		group: ['organization'],
		version: 1,
		description: 'No Operation',
		defaults: { name: 'No Operation, do nothing' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};
	const nodeType: INodeType = {
		description: {
			...baseDescription,
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: nodeType.description.name,
		typeVersion: Array.isArray(nodeType.description.version)
			? nodeType.description.version[nodeType.description.version.length - 1]
			: nodeType.description.version,
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
		response = await workflow.expression.withIsolate(
			async () => await new RoutingNode(context, nodeType, credentials).runNode(),
		);
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
				return {
					status: 'Error',
					message:
						failedResponse.statusText || `Received HTTP status code: ${failedResponse.status}`,
				};
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
	return path
		.split('.')
		.reduce<unknown>(
			(current, key) =>
				current !== null && typeof current === 'object'
					? (current as Record<string, unknown>)[key]
					: undefined,
			value,
		);
}
