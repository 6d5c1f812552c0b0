export { decodeGatewayConfig, loadGatewayConfig, type AgentCommand, type GatewayConfig, type GatewayConfigLoaded, type UpstreamServer } from './gateway-config';
export { GATEWAY_ENTRY, MCP_CONFIG_ARG, MCP_CONFIG_ENV, mcpConfigurationFor, runAgent, type AgentExit, type AgentInvocation } from './agent-process';
export { GATEWAY_PATH, GatewayHttpServer, type GatewayAccess } from './gateway-http-server';
export { createInvocationGateway, GATEWAY_SERVER_INFO, type InvocationGatewayContext } from './invocation-gateway';
export { connectUpstreams, type ConnectedUpstream, type Upstreams } from './upstreams';
export { startGatewayRuntime, type GatewayRuntime, type GatewayRuntimeOptions } from './gateway-runtime';
