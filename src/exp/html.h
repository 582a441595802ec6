/* html.c: `rocesim report --html`. */
#ifndef ROCESIM_EXP_HTML_H
#define ROCESIM_EXP_HTML_H

int exp_report_html(int argc, char **argv);

#endif
