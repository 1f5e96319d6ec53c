import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { KEY, closeChats, startFakeChat } from './harness.js';

afterEach(closeChats);

const write = (file: string, content: string) => ({ name: 'write_file', arguments: { path: file, content } });

describe('tool lines', () => {
  test('a read-only tool runs without asking and shows ✓ with its argument summary', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }, { chunks: ['read it'] }] });
    writeFileSync(path.join(fake.root, 'notes.md'), 'hello\n');
    await chat.submit('read notes');
    const frame = await chat.waitForText('read it');
    expect(frame).toMatch(/✓ read_file notes\.md/);
    expect(frame).not.toContain('Allow');
  });

  test('a failing tool shows ✗, the word error and the first lines of the message', async () => {
    const { chat } = startFakeChat({ turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] }, { chunks: ['it is missing'] }] });
    await chat.submit('read it');
    const frame = await chat.waitForText('it is missing');
    expect(frame).toMatch(/✗ read_file missing\.txt · error/);
    expect(frame).toMatch(/missing\.txt/);
  });

  test('an edit shows a unified diff with line numbers and +/- counts', async () => {
    const { chat, fake } = startFakeChat({
      turns: [
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' } }] },
        { chunks: ['edited'] },
      ],
    });
    writeFileSync(path.join(fake.root, 'app.ts'), 'const a = 1;\nconst b = 2;\nconst c = 4;\n');
    // edit_file refuses files the model has not read; mark it read the way read_file would.
    await fake.host.session.tools
      .get('read_file')!
      .execute({ path: 'app.ts' }, { workspace: fake.host.session.workspace, state: fake.host.session.toolState, signal: new AbortController().signal });
    await chat.submit('change b');
    await chat.waitForText('Allow edit_file');
    await chat.answer('y');
    const frame = await chat.waitForText('edited');
    expect(frame).toContain('✓ edit_file app.ts  +1 -1');
    expect(frame).toMatch(/ 2 - const b = 2;/);
    expect(frame).toMatch(/ 2 \+ const b = 3;/);
    expect(frame).toMatch(/ 1 {3}const a = 1;/);
  });

  test('todo_write shows the plan as a checklist', async () => {
    const todos = [
      { content: 'Read the failing test', status: 'completed' },
      { content: 'Fix the parser', status: 'in_progress' },
      { content: 'Run the suite', status: 'pending' },
    ];
    const { chat } = startFakeChat({ turns: [{ toolCalls: [{ name: 'todo_write', arguments: { todos } }] }, { chunks: ['planned'] }] });
    await chat.submit('plan it');
    const frame = await chat.waitForText('planned');
    expect(frame).toContain('✓ todo_write 1/3 done');
    expect(frame).toContain('☑ Read the failing test');
    expect(frame).toContain('◐ Fix the parser');
    expect(frame).toContain('☐ Run the suite');
  });

  test('Ctrl+T shows the current task list above the input until pressed again; /todos prints it', async () => {
    const CTRL_T = '\x14';
    const plan = (done: number) =>
      ['Read the failing test', 'Fix the parser', 'Run the suite'].map((content, index) => ({
        content,
        status: index < done ? 'completed' : index === done ? 'in_progress' : 'pending',
      }));
    const { chat } = startFakeChat({
      turns: [
        { toolCalls: [{ name: 'todo_write', arguments: { todos: plan(0) } }] },
        { toolCalls: [{ name: 'todo_write', arguments: { todos: plan(1) } }] },
        { chunks: ['planned'] },
      ],
    });
    await chat.press(CTRL_T);
    await chat.waitForText('No task list yet');
    await chat.submit('plan it');
    await chat.waitForText('planned');
    await chat.press(CTRL_T);
    const shown = await chat.waitForText('Tasks · Ctrl+T hides');
    // The newest list, right above the input box.
    const rows = shown.split('\n');
    const header = rows.findIndex((row) => row.startsWith('Tasks · Ctrl+T hides'));
    expect(rows.slice(header + 1, header + 4).map((row) => row.trim())).toEqual(['☑ Read the failing test', '◐ Fix the parser', '☐ Run the suite']);
    expect(rows[header + 4]).toMatch(/^─+$/);
    await chat.press(CTRL_T);
    await chat.waitFor((frame) => !frame.includes('Tasks · Ctrl+T hides'), 'the list hidden again');
    await chat.submit('/todos');
    const printed = await chat.waitFor((frame) => /^Tasks$/m.test(frame), 'the /todos heading');
    expect(printed.slice(printed.search(/^Tasks$/m))).toMatch(/^Tasks\n\s+☑ Read the failing test\n\s+◐ Fix the parser\n\s+☐ Run the suite/);
  });

  test('a running shell command spins and shows its output as it comes; Esc marks it interrupted', async () => {
    const { chat } = startFakeChat({ turns: [{ toolCalls: [{ name: 'shell', arguments: { command: 'echo started; sleep 5' } }] }, { chunks: ['never'] }] });
    await chat.submit('wait');
    await chat.waitForText('Allow shell');
    await chat.answer('y');
    // Once its output shows, the command is really running (not still being set up).
    await chat.waitFor((frame) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] shell echo started; sleep 5(?: \d+s)?\n\s+started/.test(frame), 'a spinning shell line with its output');
    await chat.press(KEY.escape);
    const frame = await chat.waitForText('■ shell echo started; sleep 5 · interrupted');
    expect(frame).not.toContain('never');
    await chat.waitForText('Ask anything');
  });

  test('live shell output keeps its line breaks while the command runs', async () => {
    const command = 'echo step 1; sleep 0.3; echo step 2; sleep 0.3; echo step 3; sleep 10';
    const { chat } = startFakeChat({ turns: [{ toolCalls: [{ name: 'shell', arguments: { command } }] }, { chunks: ['never'] }] });
    await chat.submit('count');
    await chat.waitForText('Allow shell');
    await chat.answer('y');
    const frame = await chat.waitFor((current) => /^ {4}step 3$/m.test(current), 'the third line of output');
    expect(frame).toMatch(/^ {4}step 1\n {4}step 2\n {4}step 3$/m);
    expect(frame).not.toContain('step 1step 2');
    expect(frame).toContain('esc to interrupt');
    await chat.press(KEY.escape);
    await chat.waitForText('Ask anything');
  });

  test('calls after a steering message are skipped and say so', async () => {
    const { chat } = startFakeChat({
      turns: [{ toolCalls: [{ name: 'shell', arguments: { command: 'sleep 0.3' } }, write('later.txt', 'x')] }, { chunks: ['changed course'] }],
    });
    await chat.submit('two steps');
    await chat.waitForText('Allow shell');
    await chat.answer('y');
    await chat.waitForText('Working…');
    await chat.submit('stop, do something else');
    const frame = await chat.waitForText('changed course');
    expect(frame).toContain('↷ write_file later.txt · skipped');
  });
});

describe('the confirmation prompt', () => {
  test('shows the diff of a write, and y runs it once', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [write('hello.txt', 'Hello\nWorld\n')] }, { chunks: ['written'] }] });
    await chat.submit('write hello');
    // The diff loads after the question appears; on a busy machine that takes a moment.
    const prompt = await chat.waitFor(
      (frame) => frame.includes('always this session') && frame.includes('Enter takes the highlighted') && frame.includes('hello.txt +2 -0'),
      'the question with its diff',
    );
    expect(prompt).toContain('? Allow write_file hello.txt?');
    expect(prompt).toContain('hello.txt +2 -0');
    expect(prompt).toMatch(/1 \+ Hello/);
    expect(prompt).toMatch(/2 \+ World/);
    expect(existsSync(path.join(fake.root, 'hello.txt'))).toBe(false);
    await chat.answer('y');
    await chat.waitForText('written');
    expect(readFileSync(path.join(fake.root, 'hello.txt'), 'utf8')).toBe('Hello\nWorld\n');
  });

  test('shows the command of a shell call', async () => {
    const { chat } = startFakeChat({ turns: [{ toolCalls: [{ name: 'shell', arguments: { command: 'npm test -- --run' } }] }, { chunks: ['ran'] }] });
    await chat.submit('test');
    const prompt = await chat.waitForText('Allow shell');
    expect(prompt).toContain('$ npm test -- --run');
    await chat.answer('n');
    await chat.press(KEY.enter);
    await chat.waitForText('ran');
  });

  test('a answers "always": the same tool does not ask again this session', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [write('a.txt', 'a')] }, { toolCalls: [write('b.txt', 'b')] }, { chunks: ['both written'] }] });
    await chat.submit('write two files');
    await chat.waitForText('Allow write_file a.txt');
    await chat.answer('a');
    const frame = await chat.waitForText('both written');
    expect(frame).not.toContain('Allow write_file b.txt');
    expect(readFileSync(path.join(fake.root, 'b.txt'), 'utf8')).toBe('b');
  });

  test('n then a reason: nothing is written and the model receives the reason', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [write('x.txt', 'x')] }, { chunks: ['understood'] }] });
    await chat.submit('write x');
    await chat.waitForText('Allow write_file x.txt');
    await chat.answer('n');
    await chat.waitForText('Tell the model why');
    await chat.typeKeys('use y.txt instead');
    await chat.press(KEY.enter);
    const frame = await chat.waitForText('understood');
    expect(frame).toContain('⊘ write_file x.txt · denied');
    expect(frame).toContain('use y.txt instead');
    expect(existsSync(path.join(fake.root, 'x.txt'))).toBe(false);
    const toolResult = fake.requests[1]!.messages.find((message) => message.role === 'tool');
    expect(toolResult?.content).toContain('use y.txt instead');
    expect(toolResult?.isError).toBe(true);
  });

  test('Esc on the prompt denies and stops the turn', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [write('x.txt', 'x')] }, { chunks: ['ok then'] }] });
    await chat.submit('write x');
    await chat.waitForText('Allow write_file');
    await chat.press(KEY.escape);
    await chat.waitFor((frame) => !frame.includes('Allow write_file') && !frame.includes('Working'), 'the turn to stop');
    expect(fake.requests).toHaveLength(1);
    expect(existsSync(path.join(fake.root, 'x.txt'))).toBe(false);
  });

  test('a prompt that appears while the user is typing ignores the keys typed ahead (finding 15)', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ chunks: ['thinking', '…'], chunkDelayMs: 150, toolCalls: [write('x.txt', 'x')] }, { chunks: ['fine'] }] });
    await chat.submit('write x');
    await chat.waitForText('Working…');
    // The user types a follow-up ("that is all") while the prompt pops up: its a and Enter must not answer.
    while (!chat.frame().includes('Allow write_file')) await chat.type('t');
    await chat.type('hat is all');
    await chat.press(KEY.enter);
    expect(chat.frame()).toContain('Allow write_file');
    expect(chat.frame()).toContain('Ignored the keys typed as this appeared');
    expect(existsSync(path.join(fake.root, 'x.txt'))).toBe(false);
    // After ignored typing, the pause that shows the question was seen is 1.2 s (issue 53 item 7).
    await new Promise((resolve) => setTimeout(resolve, 1300));
    await chat.answer('y');
    await chat.waitForText('fine');
    expect(readFileSync(path.join(fake.root, 'x.txt'), 'utf8')).toBe('x');
  });

  test('a letter answers at once (issue 44: it used to only choose); arrows move the highlight and Enter takes it', async () => {
    const { chat, fake } = startFakeChat({ turns: [{ toolCalls: [write('x.txt', 'x')] }, { toolCalls: [write('y.txt', 'y')] }, { chunks: ['fine'] }] });
    await chat.submit('write x');
    await chat.waitForText('Allow write_file x.txt');
    await new Promise((resolve) => setTimeout(resolve, 700));
    await chat.type('q');
    expect(chat.frame()).toContain('Allow write_file x.txt');
    // `q` is typing too: a letter answers after a pause (issue 53 item 7).
    await new Promise((resolve) => setTimeout(resolve, 700));
    await chat.type('y');
    await chat.waitForText('Allow write_file y.txt');
    expect(readFileSync(path.join(fake.root, 'x.txt'), 'utf8')).toBe('x');
    await new Promise((resolve) => setTimeout(resolve, 400));
    await chat.press(KEY.right);
    expect(chat.frame()).toContain('› a always this session');
    expect(existsSync(path.join(fake.root, 'y.txt'))).toBe(false);
    await chat.press(KEY.enter);
    await chat.waitForText('fine');
    expect(readFileSync(path.join(fake.root, 'y.txt'), 'utf8')).toBe('y');
    expect(fake.host.permissionRules().approved).toEqual(['write_file']);
  });
});
