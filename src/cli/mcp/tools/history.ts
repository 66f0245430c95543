// (being written) the history tools of `tend mcp`.
import type { AnyMcpTool } from '../tool-kit.js';

export const historyTools: AnyMcpTool[] = [];
