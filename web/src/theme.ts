// Dark and light themes: CSS custom properties for the page (styles.css) and
// matching xterm.js colour themes. The choice follows the system until the
// person picks one; the pick is remembered in localStorage.
import type { ITheme } from '@xterm/xterm';

export type ThemeName = 'dark' | 'light';
export type ThemeChoice = ThemeName | 'system';

const STORAGE_KEY = 'tend.theme';

export const TERMINAL_THEMES: Record<ThemeName, ITheme> = {
  dark: {
    background: '#14161b',
    foreground: '#d8dee9',
    cursor: '#f0c674',
    cursorAccent: '#14161b',
    selectionBackground: '#3b4252',
    black: '#1d2026', red: '#e06c75', green: '#98c379', yellow: '#e5c07b',
    blue: '#61afef', magenta: '#c678dd', cyan: '#56b6c2', white: '#d8dee9',
    brightBlack: '#5c6370', brightRed: '#ff7b86', brightGreen: '#b5e890', brightYellow: '#ffd68a',
    brightBlue: '#82c4ff', brightMagenta: '#de9bf0', brightCyan: '#7fd3de', brightWhite: '#ffffff',
  },
  light: {
    background: '#fbfbf8',
    foreground: '#24292f',
    cursor: '#0550ae',
    cursorAccent: '#fbfbf8',
    selectionBackground: '#c8d8f0',
    black: '#24292f', red: '#c0262d', green: '#1a7f37', yellow: '#8a6100',
    blue: '#0550ae', magenta: '#8250df', cyan: '#1b7c83', white: '#6e7781',
    brightBlack: '#57606a', brightRed: '#d93c44', brightGreen: '#2da44e', brightYellow: '#a37100',
    brightBlue: '#218bff', brightMagenta: '#a475f9', brightCyan: '#3192aa', brightWhite: '#8c959f',
  },
};

export function storedThemeChoice(): ThemeChoice {
  const v = localStorage.getItem(STORAGE_KEY);
  return v === 'dark' || v === 'light' ? v : 'system';
}

export function storeThemeChoice(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, choice);
}

export function systemTheme(): ThemeName {
  return window.matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

export function resolveTheme(choice: ThemeChoice): ThemeName {
  return choice === 'system' ? systemTheme() : choice;
}
