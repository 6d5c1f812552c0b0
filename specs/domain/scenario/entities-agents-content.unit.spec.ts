import { Yaml, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * The fields of entities, agents and content the engine does not use, typed as RAES 3.3's models type
 * them (raes/entities.py Entity, raes/agents.py Agent, raes/content.py Content and ContentItem). Every
 * refusal and acceptance below was checked against RAES.
 */

const errorsOf = (edit: (doc: Yaml) => void) =>
  errorDiagnostics(portalProbeWith(edit));
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', address, message);
const ENTITY = 'entities.portal-prober';
const AGENT = 'agents.participant-agent';
const entity = (doc: Yaml): Yaml => doc.entities['portal-prober'];
const agent = (doc: Yaml): Yaml => doc.agents['participant-agent'];

describe("an entity's fields", () => {
  it('takes its texts, categories, facts and nested entities, each typed as an entity', () => {
    expect(
      errorsOf((doc) =>
        Object.assign(entity(doc), { name: 'Prober', description: 'x', categories: ['a'], facts: { k: 'v' }, entities: { alice: { role: 'Green', entities: { bob: {} } } } }),
      ),
    ).toEqual([]);
  });

  it('refuses a text that is not one, a fact that is not a text, and a nested entity RAES refuses', () => {
    expect(errorsOf((doc) => (entity(doc).mission = 5))).toEqual([shape(`${ENTITY}.mission`, 'expected a string')]);
    expect(errorsOf((doc) => (entity(doc).facts = { k: 1 }))).toEqual([shape(`${ENTITY}.facts.k`, 'expected a string')]);
    expect(errorsOf((doc) => (entity(doc).entities = { Alice: {} }))).toEqual([shape(`${ENTITY}.entities.Alice`, 'is not a portable identifier')]);
    expect(errorsOf((doc) => (entity(doc).entities = { alice: { rank: 1 } }))).toEqual([
      { code: 'scenario.key-unknown', address: `${ENTITY}.entities.alice.rank`, message: expect.stringContaining('unknown key "rank"') },
    ]);
    expect(errorsOf((doc) => (entity(doc).entities = { alice: { role: 'purple' } }))).toEqual([shape(`${ENTITY}.entities.alice.role`, 'expected one of white, green, red, blue')]);
  });
});

describe("an agent's fields", () => {
  it('takes its lists, initial knowledge and interactive access', () => {
    expect(
      errorsOf((doc) =>
        Object.assign(agent(doc), {
          starting_accounts: [],
          initial_knowledge: { hosts: ['red-workbench'] },
          allowed_subnets: [],
          starting_assertions: [],
          authority_anchors: [],
          operating_scope: [],
          interactive_access: { console: { target_ref: 'nodes.red-workbench', channel: 'SSH' } },
        }),
      ),
    ).toEqual([]);
  });

  it('refuses a description that is not a text, and initial knowledge or interactive access RAES refuses', () => {
    expect(errorsOf((doc) => (agent(doc).description = 5))).toEqual([shape(`${AGENT}.description`, 'expected a string')]);
    expect(errorsOf((doc) => (agent(doc).initial_knowledge = { routers: [] }))).toEqual([
      { code: 'scenario.key-unknown', address: `${AGENT}.initial_knowledge.routers`, message: expect.stringContaining('unknown key "routers"') },
    ]);
    const access = (value: Yaml) => errorsOf((doc) => (agent(doc).interactive_access = { console: { target_ref: 'nodes.red-workbench', channel: 'ssh', ...value } }));
    expect(access({ channel: 'vnc' })).toEqual([shape(`${AGENT}.interactive_access.console.channel`, 'expected one of ssh, rdp')]);
    expect(access({ target_ref: '' })).toEqual([shape(`${AGENT}.interactive_access.console.target_ref`, 'expected a non-empty string')]);
    expect(access({ account_ref: '' })).toEqual([shape(`${AGENT}.interactive_access.console.account_ref`, 'expected a non-empty string')]);
    expect(errorsOf((doc) => (agent(doc).interactive_access = { Console: { target_ref: 'nodes.red-workbench', channel: 'ssh' } }))).toEqual([
      shape(`${AGENT}.interactive_access.Console`, 'is not a portable identifier'),
    ]);
  });
});

describe("content's fields", () => {
  it('takes sensitive as RAES reads a true/false word, tags, a format, null text, and an item display name', () => {
    expect(
      errorsOf((doc) => {
        Object.assign(doc.content['operator-notes'], { sensitive: 'Yes', tags: ['t'], format: 'markdown', text: null });
        Object.assign(doc.content['participant-observation'].items[0], { display_name: 'Obs', tags: ['t'] });
      }),
    ).toEqual([]);
  });

  it('refuses sensitive that is not a true/false word, tags that are not a list, and a display name that is not a text', () => {
    for (const sensitive of ['maybe', null, 1]) {
      expect(errorsOf((doc) => (doc.content['operator-notes'].sensitive = sensitive))).toEqual([shape('content.operator-notes.sensitive', 'expected true or false')]);
    }
    expect(errorsOf((doc) => (doc.content['operator-notes'].tags = 't'))).toEqual([shape('content.operator-notes.tags', 'expected a list')]);
    expect(errorsOf((doc) => (doc.content['participant-observation'].items[0].display_name = 5))).toEqual([
      shape('content.participant-observation.items.0.display_name', 'expected a string'),
    ]);
  });

  it("refuses an item's name that is not a portable identifier", () => {
    for (const name of ['Bad Name', '']) {
      expect(errorsOf((doc) => (doc.content['participant-observation'].items[0].name = name))).toEqual([
        shape('content.participant-observation.items.0.name', 'expected a portable identifier'),
      ]);
    }
  });
});
