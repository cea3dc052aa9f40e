import { describeLoggedRoutes } from "@payin/http/logged-route-suite";
import { createViews } from "../views.js";
import { pageErrorMiddleware } from "./page-errors.js";

describeLoggedRoutes("a failed payer page's log line", (logger) => pageErrorMiddleware(logger, createViews()));
