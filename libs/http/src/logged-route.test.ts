import { errorMiddleware } from "./error-middleware.js";
import { describeLoggedRoutes } from "./logged-route-suite.js";

describeLoggedRoutes("a failed request's log line", (logger) => errorMiddleware(logger));
