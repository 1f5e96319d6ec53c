import type { Color, SpanStyle } from './styled.js';

export type ThemeName = 'dark' | 'light' | 'high-contrast';
export const THEME_NAMES: readonly ThemeName[] = ['dark', 'light', 'high-contrast'];

/**
 * How the UI's named colours reach the terminal. Rows are built with names (cyan for the user,
 * gray for borders); a theme maps each name to what reads well on its background.
 */
export interface Theme {
  name: ThemeName;
  /** Replacement colours (Ink colour names or hex); a name not listed is printed as is. */
  colors: Partial<Record<Color, string>>;
  /** High contrast: nothing is dimmed. */
  noDim?: boolean;
}

export const THEMES: Record<ThemeName, Theme> = {
  dark: { name: 'dark', colors: {} },
  // On a white background yellow, cyan and gray wash out: darker shades of the same hues.
  light: {
    name: 'light',
    colors: { yellow: '#8a6100', cyan: '#006d7a', gray: '#5f5f5f', green: '#1a7f1a', magenta: '#9b1d9b', blue: '#1f4fbf', white: '#000000' },
  },
  // Bright colours only, gray as white, and no dimmed text.
  'high-contrast': {
    name: 'high-contrast',
    colors: {
      red: 'redBright',
      green: 'greenBright',
      yellow: 'yellowBright',
      blue: 'blueBright',
      magenta: 'magentaBright',
      cyan: 'cyanBright',
      gray: 'whiteBright',
      white: 'whiteBright',
    },
    noDim: true,
  },
};

export function isThemeName(name: string): name is ThemeName {
  return (THEME_NAMES as readonly string[]).includes(name);
}

/** Ink <Text> props for a span under a theme; NO_COLOR drops colours but keeps bold, dim and inverse. */
export function textProps(style: SpanStyle | undefined, noColor: boolean, theme: Theme) {
  if (!style) return {};
  return {
    color: noColor || !style.color ? undefined : (theme.colors[style.color] ?? style.color),
    bold: style.bold,
    italic: style.italic,
    dimColor: theme.noDim ? false : style.dim,
    underline: style.underline,
    inverse: style.inverse,
    strikethrough: style.strikethrough,
  };
}
