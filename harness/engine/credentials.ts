import { Credentials, getAdditionalKeys } from 'n8n-core';
import {
	ICredentialsHelper,
	isExpression,
	NodeConnectionTypes,
	NodeHelpers,
	UnexpectedError,
	Workflow,
} from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { HarnessNodeTypes } from './node-types';

/** n8n resolves credential expressions against a throwaway one-node workflow; so does the harness. */
const MOCK_NODE_TYPE = 'n8n-harness.credentialResolver';
const mockNode: INode = {
	id: 'mock',
	name: '',
	type: MOCK_NODE_TYPE,
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const mockNodeTypes = new HarnessNodeTypes({
	[MOCK_NODE_TYPE]: {
		description: {
			displayName: 'Credential resolver',
			name: MOCK_NODE_TYPE,
			group: [],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
	},
});

/**
 * The parts of n8n's CLI CredentialsHelper a node reaches: stored data by credential type (not by
 * id), defaults and expressions applied as in `applyDefaultsAndOverwrites`, and `authenticate`
 * for both function and generic credential types. Pre-authentication (expirable tokens) is a no-op.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly types: Map<string, ICredentialType>;

	constructor(
		credentialTypes: ICredentialType[],
		private readonly stored: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
		this.types = new Map(credentialTypes.map((type) => [type.name, type]));
	}

	private getType(name: string): ICredentialType {
		const type = this.types.get(name);
		if (type === undefined)
			throw new UnexpectedError(`Unknown credential type "${name}": add it to credentialTypes`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.getType(name).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function')
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		if (authenticate?.type !== 'generic') return requestOptions as IHttpRequestOptions;
		if (workflow === undefined || node === undefined) {
			throw new UnexpectedError(
				'Workflow and node are required for declarative credential authentication',
			);
		}

		// Same steps as n8n: each `headers`/`qs`/`body`/`auth` entry, key and value resolved as
		// an expression with only `$credentials` in scope, in 'internal' mode.
		const resolve = (value: string): string => {
			if (!isExpression(value)) return value;
			const resolved = workflow.expression.getSimpleParameterValue(
				node,
				value,
				'internal',
				{ $credentials: credentials },
				undefined,
				'',
			);
			return resolved ? String(resolved) : '';
		};
		const target = requestOptions as unknown as Record<string, Record<string, string> | undefined>;
		requestOptions.headers ??= {};
		for (const [section, entries] of Object.entries(authenticate.properties)) {
			const resolvedSection: Record<string, string> = (target[section] ??= {});
			for (const [key, value] of Object.entries(entries as Record<string, string>)) {
				resolvedSection[resolve(key)] = resolve(value);
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return Promise.resolve(undefined);
	}

	runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return Promise.resolve(undefined);
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		const credentials = new Credentials(nodeCredentials, type);
		await credentials.setData(this.storedData(nodeCredentials, type));
		return credentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.storedData(nodeCredentials, type);
		if (raw === true) return { ...data };
		return await this.applyDefaultsAndExpressions(
			additionalData,
			data,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** n8n's `applyDefaultsAndOverwrites` without overwrites: add property defaults, then resolve expressions. */
	async applyDefaultsAndExpressions(
		additionalData: IWorkflowExecuteAdditionalData,
		data: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const withDefaults = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			data as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (data.oauthTokenData !== undefined) withDefaults.oauthTokenData = data.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
				expressionResolveValues;
			return workflow.expression.getParameterValue(
				withDefaults as INodeParameters,
				runExecutionData,
				runIndex,
				itemIndex,
				node.name,
				connectionInputData,
				mode,
				additionalKeys,
				executeData,
				false,
				withDefaults,
			) as ICredentialDataDecryptedObject;
		}

		const workflow = new Workflow({
			nodes: [mockNode],
			connections: {},
			active: false,
			nodeTypes: mockNodeTypes,
		});
		return await workflow.expression.withIsolate(() =>
			Promise.resolve(
				workflow.expression.getComplexParameterValue(
					mockNode,
					withDefaults as INodeParameters,
					mode,
					additionalKeys,
					undefined,
					undefined,
					withDefaults,
				) as ICredentialDataDecryptedObject,
			),
		);
	}

	updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.stored[type] = data;
		return Promise.resolve();
	}

	updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.stored[type] = {
			...this.storedData(nodeCredentials, type),
			oauthTokenData: data.oauthTokenData,
		};
		return Promise.resolve();
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.getType(type);
		if (credentialType.extends === undefined) return credentialType.properties;
		// Parent properties first, the type's own ones take precedence, as in n8n.
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends)
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}

	private storedData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): ICredentialDataDecryptedObject {
		const data = this.stored[type];
		if (data === undefined) {
			// The message n8n's CredentialNotFoundError gives.
			throw new UnexpectedError(
				`Credential with ID "${nodeCredentials.id ?? ''}" does not exist for type "${type}".`,
			);
		}
		return data;
	}
}
