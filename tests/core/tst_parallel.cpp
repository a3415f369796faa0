// SPDX-License-Identifier: MIT
// parallelFor runs every task once, on no more threads than asked, keeps results in task
// order, and hands the first exception to the caller.
#include "gaplens/core/util/parallel.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace gaplens::core;

class TestParallel : public QObject
{
    Q_OBJECT

private slots:
    void everyTaskRunsOnceAndResultsKeepTheirOrder()
    {
        for (unsigned threads : { 0u, 1u, 2u, 7u }) {
            std::vector<std::size_t> results(1000, 0);
            std::vector<std::atomic<int>> runs(results.size());
            parallelFor(results.size(), threads, [&](std::size_t i) {
                results[i] = i * i;
                ++runs[i];
            });
            for (std::size_t i = 0; i < results.size(); ++i) {
                QCOMPARE(results[i], i * i);
                QCOMPARE(runs[i].load(), 1);
            }
        }
    }

    void noMoreThreadsThanAskedOrThanTasks()
    {
        auto threadsUsed = [](std::size_t tasks, unsigned threads) {
            std::mutex mutex;
            std::set<std::thread::id> ids;
            parallelFor(tasks, threads, [&](std::size_t) {
                // Long enough that every started thread takes a task.
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                std::lock_guard lock(mutex);
                ids.insert(std::this_thread::get_id());
            });
            return ids;
        };
        QCOMPARE(threadsUsed(20, 3).size(), std::size_t(3));
        QCOMPARE(threadsUsed(2, 8).size(), std::size_t(2));
        const auto serial = threadsUsed(5, 1);
        QCOMPARE(serial.size(), std::size_t(1));
        QCOMPARE(*serial.begin(), std::this_thread::get_id()); // one thread: the caller's
    }

    void noTasksRunNothing()
    {
        bool ran = false;
        parallelFor(0, 4, [&](std::size_t) { ran = true; });
        QVERIFY(!ran);
    }

    void theFirstExceptionReachesTheCallerAndStopsLaterTasks()
    {
        for (unsigned threads : { 1u, 2u, 4u }) {
            std::atomic<std::size_t> started { 0 };
            bool caught = false;
            try {
                parallelFor(10'000, threads, [&](std::size_t i) {
                    ++started;
                    if (i == 3)
                        throw std::runtime_error("task 3");
                    std::this_thread::sleep_for(std::chrono::microseconds(100));
                });
            } catch (const std::runtime_error &e) {
                caught = true;
                QCOMPARE(std::string(e.what()), std::string("task 3"));
            }
            QVERIFY(caught);
            QVERIFY2(started < 10'000, "tasks kept starting after the exception");
        }
    }
};

QTEST_APPLESS_MAIN(TestParallel)
#include "tst_parallel.moc"
