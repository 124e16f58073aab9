// uPlot's own types for the copy the build puts at dist/console/vendor/uplot.js (node_modules/uplot/dist/uPlot.esm.js).
import uPlot from 'uplot';
export default uPlot;
