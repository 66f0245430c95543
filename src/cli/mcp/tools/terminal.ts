// (being written) the terminal tools of `tend mcp`.
import type { AnyMcpTool } from '../tool-kit.js';

export const terminalTools: AnyMcpTool[] = [];
