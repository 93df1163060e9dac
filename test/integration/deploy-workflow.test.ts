// The deploy workflow's own logic: which stage a branch deploys to, which settings a deploy
// refuses to go without, and the workflow's guards around the long-lived stages.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

const root = fileURLToPath(new URL('../..', import.meta.url));

const stageName = (branch: string) => {
  const run = spawnSync('bash', [join(root, 'infra/deploy/stage-name.sh'), branch], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stdout.trim();
};

const params = (stage: string, env: Record<string, string>) =>
  spawnSync('bash', [join(root, 'infra/deploy/params.sh'), stage], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });

describe('infra/deploy/stage-name.sh', () => {
  it('deploys the main and prod branches, and only those, to the stages main and prod', () => {
    expect(stageName('main')).toBe('main');
    expect(stageName('prod')).toBe('prod');
    for (const branch of ['Prod', 'PROD', 'prod/', 'prod-', 'main/x', 'Main', 'local', 'feature/prod', '-prod-']) {
      expect(['main', 'prod', 'local']).not.toContain(stageName(branch));
    }
  });

  it('gives branches whose names differ only in case or punctuation different stages', () => {
    const branches = ['feature/Add-Login', 'feature-add-login', 'Feature/add_login', 'feature/add.login', 'feature//add-login'];
    const stages = branches.map(stageName);
    expect(new Set(stages).size).toBe(branches.length);
  });

  it('makes names AWS accepts in every resource name: lower case, a letter first, at most 20 characters', () => {
    for (const branch of ['a', '123', '---', 'ünïcödé/β', 'a-very-long-branch-name-that-goes-on-and-on', 'UPPER_case.dots', 'dependabot/npm_and_yarn/esbuild-0.25.0']) {
      expect(stageName(branch)).toMatch(/^[a-z][a-z0-9-]{0,19}$/);
      expect(stageName(branch)).not.toMatch(/--|-$/);
    }
  });

  it('is stable: the same branch always deploys to the same stage', () => {
    expect(stageName('feature/Add-Login')).toBe(stageName('feature/Add-Login'));
  });
});

describe('infra/deploy/params.sh', () => {
  it('refuses to deploy without MAIL_FROM, naming it', () => {
    const run = params('feature-x-abc123', {});
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('MAIL_FROM');
  });

  it('refuses to deploy prod without its public BASE_URL', () => {
    const run = params('prod', { MAIL_FROM: 'notifications@social.example' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('BASE_URL');
    expect(params('main', { MAIL_FROM: 'notifications@social.example' }).status).toBe(0);
  });

  it('refuses a public URL that is not https (or wss for streaming)', () => {
    const run = params('prod', { MAIL_FROM: 'n@social.example', BASE_URL: 'http://social.example' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('BASE_URL');
  });

  it('turns the settings into serverless --param arguments, leaving unset ones to their defaults', () => {
    const run = params('prod', {
      MAIL_FROM: 'notifications@social.example',
      BASE_URL: 'https://social.example',
      STREAMING_URL: 'wss://streaming.social.example',
      ALARM_EMAIL: 'ops@social.example',
    });
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      '--param=mailFrom=notifications@social.example',
      '--param=baseUrl=https://social.example',
      '--param=streamingUrl=wss://streaming.social.example',
      '--param=alarmEmail=ops@social.example',
    ]);
  });

  it('serves BASE_URL\'s host from the distribution itself given its certificate, and refuses a certificate outside us-east-1', () => {
    const arn = 'arn:aws:acm:us-east-1:123456789012:certificate/0f2b8c1e-1111-2222-3333-444455556666';
    const run = params('prod', { MAIL_FROM: 'n@social.example', BASE_URL: 'https://social.example', CERTIFICATE_ARN: arn });
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      '--param=mailFrom=n@social.example',
      '--param=customDomain=social.example',
      `--param=certificateArn=${arn}`,
      '--param=baseUrl=https://social.example',
    ]);
    const elsewhere = params('prod', { MAIL_FROM: 'n@social.example', BASE_URL: 'https://social.example', CERTIFICATE_ARN: arn.replace('us-east-1', 'eu-west-1') });
    expect(elsewhere.status).not.toBe(0);
    expect(elsewhere.stderr).toContain('CERTIFICATE_ARN');
    const alone = params('main', { MAIL_FROM: 'n@social.example', CERTIFICATE_ARN: arn });
    expect(alone.status).not.toBe(0);
    expect(alone.stderr).toContain('BASE_URL');
  });
});

describe('.github/workflows/deploy.yml', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const workflow = load(readFileSync(join(root, '.github/workflows/deploy.yml'), 'utf8')) as any;
  const jobs = workflow.jobs;

  it('never removes the main or prod stack', () => {
    expect(jobs.remove.if).toContain("needs.stage.outputs.protected != 'true'");
    const stageStep = jobs.stage.steps.find((s: { id?: string }) => s.id === 'name');
    expect(stageStep.run).toMatch(/main \| prod\) echo "protected=true"/);
  });

  it('runs one deploy or removal at a time per stage, whatever the branch name', () => {
    for (const job of [jobs.deploy, jobs.remove]) {
      expect(job.concurrency).toEqual({ group: 'stack-${{ needs.stage.outputs.stage }}', 'cancel-in-progress': false });
    }
  });

  it('deploys prod only through the protected production environment', () => {
    expect(jobs.deploy.environment).toBe("${{ needs.stage.outputs.stage == 'prod' && 'production' || 'preview' }}");
  });

  it('checks the deploy settings before anything is created, and tests and deploys on Node 22', () => {
    const steps: { name?: string; run?: string; uses?: string; with?: Record<string, unknown> }[] = jobs.deploy.steps;
    const check = steps.findIndex((s) => s.run?.includes('infra/deploy/params.sh'));
    const secrets = steps.findIndex((s) => s.run?.includes('infra/deploy/secrets.sh'));
    const deploy = steps.findIndex((s) => s.run?.includes('serverless deploy'));
    expect(check).toBeGreaterThanOrEqual(0);
    expect(check).toBeLessThan(secrets);
    expect(secrets).toBeLessThan(deploy);
    expect(jobs.test.container).toBe('node:22-bookworm');
    // The origin secret reaches CloudFormation as a parameter, masked in the log.
    const origin = steps.findIndex((s) => s.run?.includes('originSecret'));
    expect(secrets).toBeLessThan(origin);
    expect(origin).toBeLessThan(deploy);
    expect(steps[origin]!.run).toContain('::add-mask::');
    expect(steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with?.['node-version']).toBe(22);
  });

  it('prints the stage\'s URL after each deploy and smoke-tests it as a client would, with a masked token', () => {
    const steps: { name?: string; run?: string; env?: Record<string, string> }[] = jobs.deploy.steps;
    const deploy = steps.findIndex((s) => s.run?.includes('serverless deploy'));
    const outputs = steps.findIndex((s) => s.run?.includes("OutputKey=='BaseUrl'"));
    const smoke = steps.findIndex((s) => s.run?.includes('infra/deploy/smoke.ts'));
    expect(deploy).toBeLessThan(outputs);
    expect(outputs).toBeLessThan(smoke);
    expect(steps[outputs]!.run).toContain('GITHUB_STEP_SUMMARY');
    expect(steps[smoke]!.run).toContain('accounts token smoke');
    expect(steps[smoke]!.run).toContain('::add-mask::');
    expect(steps[smoke]!.env?.BASE_URL).toBe('${{ steps.outputs.outputs.url }}');
  });
});
