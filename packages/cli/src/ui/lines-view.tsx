import { Box, Text } from 'ink';
import { Fragment, createContext, memo, useContext } from 'react';
import type { StyledLine } from './styled.js';
import { THEMES, textProps, type Theme } from './theme.js';

/** NO_COLOR: colours go, while bold, dim and inverse (the cursor) stay, since they are not colour. */
export const NoColorContext = createContext(false);
/** `ui.theme` (or /theme): how named colours are printed. */
export const ThemeContext = createContext<Theme>(THEMES.dark);

/** One terminal row per line; we wrapped already, so Ink only ever truncates. */
const Line = memo(function Line({ line }: { line: StyledLine }) {
  const noColor = useContext(NoColorContext);
  const theme = useContext(ThemeContext);
  const empty = line.every((part) => part.text === '');
  return (
    <Text wrap="truncate-end">
      {empty
        ? ' '
        : line.map((part, index) => (
            <Text key={index} {...textProps(part.style, noColor, theme)}>
              {part.text}
            </Text>
          ))}
    </Text>
  );
});

export function Lines({ lines }: { lines: readonly StyledLine[] }) {
  return (
    <Box flexDirection="column">
      {lines.map((line, index) => (
        <Line key={index} line={line} />
      ))}
    </Box>
  );
}

/**
 * A finished block as one Ink text node: one Yoga node and one measurement for the whole block
 * instead of one per row, which halves the cost of printing a long answer. Rows already fit the
 * width, so Ink never re-wraps them.
 */
export const BlockText = memo(function BlockText({ lines }: { lines: readonly StyledLine[] }) {
  const noColor = useContext(NoColorContext);
  const theme = useContext(ThemeContext);
  return (
    <Text>
      {lines.map((line, row) => (
        <Fragment key={row}>
          {row > 0 ? '\n' : ''}
          {line.map((part, index) =>
            part.style ? (
              <Text key={index} {...textProps(part.style, noColor, theme)}>
                {part.text}
              </Text>
            ) : (
              part.text
            ),
          )}
        </Fragment>
      ))}
    </Text>
  );
});
