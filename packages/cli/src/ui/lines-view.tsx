import { Box, Text } from 'ink';
import { createContext, memo, useContext } from 'react';
import type { SpanStyle, StyledLine } from './styled.js';

/** NO_COLOR: colours go, while bold, dim and inverse (the cursor) stay, since they are not colour. */
export const NoColorContext = createContext(false);

function textProps(style: SpanStyle | undefined, noColor: boolean) {
  if (!style) return {};
  return {
    color: noColor ? undefined : style.color,
    bold: style.bold,
    italic: style.italic,
    dimColor: style.dim,
    underline: style.underline,
    inverse: style.inverse,
    strikethrough: style.strikethrough,
  };
}

/** One terminal row per line; we wrapped already, so Ink only ever truncates. */
export const Line = memo(function Line({ line }: { line: StyledLine }) {
  const noColor = useContext(NoColorContext);
  const empty = line.every((part) => part.text === '');
  return (
    <Text wrap="truncate-end">
      {empty
        ? ' '
        : line.map((part, index) => (
            <Text key={index} {...textProps(part.style, noColor)}>
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
