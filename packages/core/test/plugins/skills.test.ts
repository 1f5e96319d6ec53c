import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoadSkillTool, loadPlugins, skillInvocation, skillsTriggeredBy, triggeredSkillMessage, type PluginCatalog } from '../../src/plugins/index.js';
import { createToolSessionState, toolDeclaration, type ToolContext } from '../../src/tools/tool.js';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/plugins');
const context: ToolContext = {
  signal: new AbortController().signal,
  workspace: { root: '/tmp', cwd: '/tmp', isGit: false },
  state: createToolSessionState(),
};

describe('skills', () => {
  let catalog: PluginCatalog;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'beans-skills-'));
    await cp(path.join(fixtures, 'root-a', 'oddities'), path.join(dir, 'oddities'), { recursive: true });
    await cp(path.join(fixtures, 'root-b', 'dupes'), path.join(dir, 'dupes'), { recursive: true });
    // A command with a skill's name: commands win.
    await writeFile(path.join(dir, 'dupes', 'commands', 'single-file.md'), '---\ndescription: Same name as a skill\n---\nCommand body.\n');
    await mkdir(path.join(dir, 'dupes', 'skills'));
    await writeFile(path.join(dir, 'dupes', 'skills', 'user-only.md'), '---\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy body.\n');
    catalog = await loadPlugins({ roots: [dir] });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('load_skill tool', () => {
    it('refuses a skill only the user may run, which /user-only still runs', async () => {
      const tool = createLoadSkillTool(catalog);
      const result = await tool.execute({ name: 'user-only' }, context);
      expect(result).toMatchObject({ isError: true });
      expect(result.content).toContain('only the user can run it');
      expect((await skillInvocation('/user-only now', catalog))?.prompt).toContain('Deploy body.');
    });

    it('is declared as load_skill with one name parameter', () => {
      const tool = createLoadSkillTool(catalog);
      const declaration = toolDeclaration(tool);
      expect(declaration.name).toBe('load_skill');
      expect(tool.kind).toBe('meta');
      expect(declaration.parameters).toMatchObject({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
    });

    it('returns the full body and says where the skill folder is and what is in it', async () => {
      const result = await createLoadSkillTool(catalog).execute({ name: 'with-rules' }, context);
      expect(result.isError).toBeFalsy();
      expect(result.content).toContain(`Skill folder: ${path.join(dir, 'oddities', 'skills', 'with-rules')}`);
      expect(result.content).toContain('Files in it: references/rules.md, scripts/check.sh');
      expect(result.content).toContain('# Code rules');
      expect(result.content).toContain('Read references/rules.md for the full list.');
    });

    it('reads a file beside the skill through skill/path, and refuses paths outside its folder', async () => {
      const tool = createLoadSkillTool(catalog);
      const file = await tool.execute({ name: 'with-rules/references/rules.md' }, context);
      expect(file).toEqual({ content: '# with-rules/references/rules.md\n\n1. No global state.\n' });
      const escape = await tool.execute({ name: 'with-rules/../../agents/folded.md' }, context);
      expect(escape.isError).toBe(true);
      const missing = await tool.execute({ name: 'with-rules/references/nope.md' }, context);
      expect(missing).toMatchObject({ isError: true, content: expect.stringContaining('Files in it: references/rules.md, scripts/check.sh') });
    });

    it('names the file of a single-file skill', async () => {
      const result = await createLoadSkillTool(catalog).execute({ name: 'single-file' }, context);
      expect(result.content).toContain(`Skill file: ${path.join(dir, 'oddities', 'skills', 'single-file.md')}`);
      expect(result.content).toContain('Single-file skill body.');
    });

    it('answers an unknown name with an error listing the known skills', async () => {
      const result = await createLoadSkillTool(catalog).execute({ name: 'deploy-prod' }, context);
      expect(result).toEqual({ isError: true, content: 'Unknown skill "deploy-prod". Known skills: single-file, triggered, with-rules.' });
    });
  });

  describe('triggers', () => {
    it('finds skills whose trigger phrase occurs in the message, ignoring case and spacing', () => {
      expect(skillsTriggeredBy('Please READ THE  logs and tell me why it crashed', catalog).map((skill) => skill.name)).toEqual(['triggered']);
      expect(skillsTriggeredBy('what is in this log file?', catalog).map((skill) => skill.name)).toEqual(['triggered']);
    });

    it('matches whole words only', () => {
      expect(skillsTriggeredBy('the catalog filename is wrong', catalog)).toEqual([]);
      expect(skillsTriggeredBy('dialog files', catalog)).toEqual([]);
    });

    it('matches in text beyond ASCII, case folded the Unicode way', () => {
      expect(skillsTriggeredBy('Können Sie READ\u00a0the logs lesen?', catalog).map((skill) => skill.name)).toEqual(['triggered']);
      // U+017F LATIN SMALL LETTER LONG S folds to "s": lowercase search alone would miss it.
      expect(skillsTriggeredBy('where is the log file\u017f', catalog)).toEqual([]);
      expect(skillsTriggeredBy('read the log\u017f', catalog).map((skill) => skill.name)).toEqual(['triggered']);
    });

    it('builds the message the session prepends, with the body', async () => {
      const message = await triggeredSkillMessage(catalog.findSkill('triggered')!);
      expect(message).toMatch(/matches the "triggered" skill/);
      expect(message).toContain('Start from the last error line and read upwards.');
    });
  });

  describe('/skill-name', () => {
    it('loads a skill when a slash command names it', async () => {
      const invocation = await skillInvocation('/triggered why did CI fail', catalog);
      expect(invocation?.skill.name).toBe('triggered');
      expect(invocation?.prompt).toContain('Start from the last error line');
      expect(invocation?.prompt).toContain("The user's request: why did CI fail");
    });

    it('gives way to a command of the same name and to built-in commands', async () => {
      expect(await skillInvocation('/single-file', catalog)).toBeUndefined();
      expect(await skillInvocation('/help', catalog)).toBeUndefined();
      expect(await skillInvocation('/unknown', catalog)).toBeUndefined();
    });
  });
});
