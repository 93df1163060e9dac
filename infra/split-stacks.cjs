// Keeps every CloudFormation stack of the service under AWS's limit of 500 resources
// (121 functions bring about 600) while keeping one Lambda per endpoint.
//
// serverless-plugin-split-stacks does the hard part: it moves resources into nested
// stacks and rewrites every Ref, GetAtt and DependsOn that crosses a stack boundary
// into parameters and outputs. This wraps it to change two things for this project:
//  - Where a resource goes is decided here, by function group: everything made for
//    a function of `functions/<group>/` (the function, its log group, permissions,
//    HTTP API integration and routes, queue mapping, schedule, URL) goes to the
//    nested stack `<Group>NestedStack`. The layout follows the source tree, so it is
//    stable from one deploy to the next, and a group is one stack to read.
//    The shared resources (table, bucket, queues, both APIs, roles, alarms) stay in
//    the root stack, and so does the streaming group: the WebSocket API's deployment
//    must depend on its routes, which CloudFormation only allows within one stack.
//  - The plugin asks CloudFormation at package time where resources were deployed
//    before, which needs AWS credentials; with a deterministic layout there is
//    nothing to ask, so `serverless package` runs without an account (CI, tests).
// The nested templates are written beside the root template (Serverless moves them
// into the folder `--package` names) and uploaded to the deployment bucket on deploy.
//
// It also adds, where the framework has not, what a function URL with auth type NONE needs
// since October 2025: besides `lambda:InvokeFunctionUrl`, a `lambda:InvokeFunction`
// permission limited to calls made through the URL (osls makes it; Serverless 3.40 did not).
'use strict';

const SplitStacks = require('serverless-plugin-split-stacks');

/** Groups whose resources stay in the root stack. */
const ROOT_GROUPS = new Set(['streaming']);

const pascal = (name) => name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');

class TootlessSplitStacks extends SplitStacks {
  constructor(serverless, options) {
    super(serverless, options);
    // The choice of destination is ours; the plugin's own strategies stay off.
    this.config = { ...this.config, perFunction: false, perType: false, perGroupFunction: false };
    // The plugin copies its steps onto the instance (Object.assign in its constructor), which
    // would hide this class's methods: put ours back on top.
    for (const step of ['migrateExistingResources', 'migrateNewResources']) {
      this[step] = TootlessSplitStacks.prototype[step].bind(this);
    }
    this.hooks['after:aws:package:finalize:mergeCustomProviderResources'] = () => {
      const provider = this.serverless.service.provider;
      // Serverless shares one object between every function's copy of a value (the
      // environment's `${param:...}` intrinsics), and the plugin rewrites references in
      // place: without a copy, the first function moved rewrites the others' references too.
      provider.compiledCloudFormationTemplate = JSON.parse(JSON.stringify(provider.compiledCloudFormationTemplate));
      this.addFunctionUrlInvokePermissions();
      return this.split();
    };
  }

  addFunctionUrlInvokePermissions() {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type !== 'AWS::Lambda::Url' || resource.Properties.AuthType !== 'NONE') continue;
      const functionId = id.replace(/Url$/, '');
      // osls makes it itself; Serverless 3.40 did not.
      const made = Object.values(resources).some(
        (r) =>
          r.Type === 'AWS::Lambda::Permission' &&
          r.Properties.Action === 'lambda:InvokeFunction' &&
          r.Properties.InvokedViaFunctionUrl === true &&
          JSON.stringify(r.Properties.FunctionName) === JSON.stringify(resource.Properties.TargetFunctionArn),
      );
      if (made) continue;
      resources[`${functionId.replace(/LambdaFunction$/, '')}LambdaPermissionFnUrlInvoke`] = {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
          Action: 'lambda:InvokeFunction',
          Principal: '*',
          InvokedViaFunctionUrl: true,
        },
      };
    }
  }

  // Overrides: no lookup of the deployed stack (see above).
  migrateExistingResources() {
    this.existingResources = {};
    return Promise.resolve();
  }

  migrateNewResources() {
    const naming = this.provider.naming;
    const functions = this.serverless.service.functions;
    // Normalized function name (the prefix of most of its resources' ids) -> group.
    const groupOf = new Map();
    for (const [key, fn] of Object.entries(functions)) {
      const match = /^functions\/([^/]+)\//.exec(fn.handler || '');
      if (!match) throw new Error(`split-stacks: function ${key} has no handler under functions/<group>/`);
      groupOf.set(naming.getNormalizedFunctionName(key), match[1]);
    }
    const names = [...groupOf.keys()].sort((a, b) => b.length - a.length);
    const owner = (logicalId) => names.find((n) => logicalId.startsWith(n));
    const integrationOwner = (logicalId) => {
      const match = /^HttpApiIntegration(.+)$/.exec(logicalId);
      return match ? names.find((n) => n === match[1]) : undefined;
    };

    for (const [logicalId, resource] of Object.entries(this.resourcesById)) {
      let fn;
      if (resource.Type === 'AWS::ApiGatewayV2::Integration') fn = integrationOwner(logicalId) ?? owner(logicalId);
      else if (resource.Type === 'AWS::ApiGatewayV2::Route') {
        // A route names its function only through its integration: Target is integrations/<id>.
        const target = JSON.stringify(resource.Properties.Target || '');
        const integration = /"Ref":"([A-Za-z0-9]+)"/.exec(target);
        fn = integration ? integrationOwner(integration[1]) ?? owner(integration[1]) : undefined;
      } else fn = owner(logicalId);
      if (!fn) continue;
      const group = groupOf.get(fn);
      if (ROOT_GROUPS.has(group)) continue;
      this.migrate(logicalId, this.getStackName(pascal(group), false));
    }
  }
}

module.exports = TootlessSplitStacks;
