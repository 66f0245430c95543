// (being written) the sessions tools of `tend mcp`.
import type { AnyMcpTool } from '../tool-kit.js';

export const sessionTools: AnyMcpTool[] = [];
