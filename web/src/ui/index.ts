// ui — the page's shared pieces of DOM, used by every feature's panels: building elements, notes
// worded at render time, the core's messages in the page's language, notices, the tooltip,
// heat maps, token strips. Features import them from here (web/test/architecture.test.ts keeps
// it so): what is not exported here is ui's own business.
export { $, append, clear, cssVar, h, panelHeader, setText, throttle } from './dom';
export { coreNode } from './core-message';
export { type CoreNote, coreInline, type Drawn, type Note, NoteLine, noteNode, noteText, withData } from './note';
export { type Kind, notify } from './messages';
export { hideTooltip, showTooltip, showTooltipAt } from './tooltip';
export {
  colorCss, drawAttention, drawHighlight, drawMatrix, drawMatrixHighlight, drawPackedAttention, drawTicks, moveCell, quantisedColor, weightColor,
} from './heatmap';
export { HeadPicker } from './head-picker';
export { TokenStrip, characterTitle, segmentProb, shadedSpan, surprise } from './shading';
export { downloadBytes } from './download';
export { installDropTarget } from './drag-drop';
export { bindLanguageSwitch } from './language-switch';
export { installShortcuts, type ShortcutActions } from './shortcuts';
