import { decodeGatewayConfig } from '../../../../adapters/mcp/gateway';

/** The gateway configuration: the mcpServers shape, each server's tool relations, the agent command. */

const RELATION = {
  tool_affordance_address: 'a.tool-affordance.x',
  action_contract_address: 'a.action-contract.y',
  observation_boundary_address: 'a.observation-boundary.z',
  target_addresses: ['t'],
};

describe('decodeGatewayConfig', () => {
  it('reads stdio and Streamable HTTP servers, joins their mappings, and resolves paths from the base', () => {
    const loaded = decodeGatewayConfig(
      {
        mcpServers: {
          local: { command: 'node', args: ['server.js'], env: { A: '1' }, tools: { lookup: RELATION } },
          remote: { url: 'http://127.0.0.1:9000/mcp', headers: { Authorization: 'Bearer x' }, tools: { search: RELATION } },
        },
        agent: { command: 'python3', args: ['agent.py', '{mcp_config}'], cwd: 'agents' },
      },
      '/base',
    );
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config.servers.map((server) => [server.name, server.transport])).toEqual([
      ['local', 'stdio'],
      ['remote', 'http'],
    ]);
    expect(Object.keys(loaded.config.mapping)).toEqual(['lookup', 'search']);
    expect(loaded.config.agent).toMatchObject({ command: 'python3', cwd: '/base/agents', args: ['agent.py', '{mcp_config}'] });
  });

  it('names the field of a bad server or relation', () => {
    const noAgent = decodeGatewayConfig({ mcpServers: { local: { command: 'node', tools: {} } } }, '/base');
    expect(noAgent).toEqual({ ok: false, message: expect.stringMatching(/agent/) });
    const badRelation = decodeGatewayConfig({ mcpServers: { local: { command: 'node', tools: { lookup: { ...RELATION, target_addresses: [1] } } } }, agent: { command: 'a' } }, '/base');
    expect(badRelation).toEqual({ ok: false, message: expect.stringMatching(/mcpServers\.local\.tools: .*lookup\.target_addresses\.0/) });
    const badUrl = decodeGatewayConfig({ mcpServers: { remote: { url: 'not a url', tools: {} } }, agent: { command: 'a' } }, '/base');
    expect(badUrl).toEqual({ ok: false, message: expect.stringMatching(/mcpServers\.remote\.url: expected an http\(s\) URL/) });
  });

  it('refuses a tool name two servers map, and a file with no server', () => {
    const twice = decodeGatewayConfig(
      { mcpServers: { a: { command: 'x', tools: { lookup: RELATION } }, b: { command: 'y', tools: { lookup: RELATION } } }, agent: { command: 'a' } },
      '/base',
    );
    expect(twice).toEqual({ ok: false, message: expect.stringMatching(/tool lookup is mapped by both mcpServers\.a and mcpServers\.b/) });
    expect(decodeGatewayConfig({ mcpServers: {}, agent: { command: 'a' } }, '/base')).toEqual({ ok: false, message: expect.stringMatching(/at least one/) });
  });

  it('reports an unreadable mapping file with its path', () => {
    const missing = decodeGatewayConfig({ mcpServers: { a: { command: 'x', tools: 'missing.json' } }, agent: { command: 'a' } }, '/base');
    expect(missing).toEqual({ ok: false, message: expect.stringMatching(/mcpServers\.a\.tools: cannot read the tool mapping \/base\/missing\.json/) });
  });
});
