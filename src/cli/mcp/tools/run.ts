// (being written) the run tools of `tend mcp`.
import type { AnyMcpTool } from '../tool-kit.js';

export const runTools: AnyMcpTool[] = [];
