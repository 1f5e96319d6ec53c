// esbuild bundles the page's CSS imported from its modules into one stylesheet.
declare module '*.css';
