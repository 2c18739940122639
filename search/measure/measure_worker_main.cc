#include "search/measure/measure_worker.h"

int main(int argc, char** argv) { return tessel::search::MeasureWorkerMain(argc, argv); }
