// The service's name and version, as the index, the contract, the MCP servers and the machine
// surfaces state them (package.json's version; a test keeps the two in step).
export const SERVICE_NAME = 'sales-pipeline-service';
export const SERVICE_VERSION = '0.1.0';
